"""`mjtable flash` against a folder laid out as the Pico's RPI-RP2 drive
(its boot ROM shows INFO_UF2.TXT and INDEX.HTM), with UF2 files made here
block by block. Booting the written image on the emulated Pico is
tests/board/test_image_board.py's."""

import struct

from mjcall import call
from mjtable.firmware import uf2 as U

INFO = "UF2 Bootloader v3.0\r\nModel: Raspberry Pi RP2\r\nBoard-ID: RPI-RP2\r\n"
MARK = b"mjtable-fw 0.5.0 0123456789ab"


def uf2(payload, family=U.RP2040, order=None):
    """payload as RP2040 UF2 blocks of 256 B at 0x10000000 (blocks in `order`)."""
    chunks = [payload[i:i + 256].ljust(256, b"\0") for i in range(0, len(payload), 256)]
    blocks = []
    for i, c in enumerate(chunks):
        head = struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0x2000, 0x10000000 + 256 * i, 256,
                           i, len(chunks), family)
        blocks.append(head + c + bytes(476 - 256) + struct.pack("<I", 0x0AB16F30))
    for i in order or ():
        blocks.append(blocks.pop(i))
    return b"".join(blocks)


def image(tmp_path, name="mjtable-pico.uf2", **kw):
    # the mark straddles the first block boundary, the version string after it
    body = bytes(250) + MARK + bytes(300) + b"MicroPython v1.28.0 on 2026-12-01; Pico" + bytes(9)
    p = tmp_path / name
    p.write_bytes(uf2(body, **kw))
    return p


def drive(tmp_path):
    d = tmp_path / "RPI-RP2"
    d.mkdir()
    (d / "INFO_UF2.TXT").write_text(INFO)
    (d / "INDEX.HTM").write_text("<html><head><meta http-equiv=\"refresh\" "
                                 "content=\"0;URL='https://raspberrypi.com/device/RP2?version=E0C9125B0D9B'\"/></head></html>")
    return d


def test_reads_the_images_mark_across_blocks_in_any_order(tmp_path):
    img = U.read(str(image(tmp_path, order=[0])))  # block 0 sent last
    assert (img["fw"], img["commit"], img["mpy"], img["date"]) == (
        "0.5.0", "0123456789ab", "v1.28.0", "2026-12-01")


def test_dry_run_names_the_drive_and_writes_nothing(tmp_path, capsys):
    d = drive(tmp_path)
    code, out, _ = call(capsys, "flash", str(image(tmp_path)), "--drive", str(d), "--dry-run")
    assert code == 0
    assert "firmware 0.5.0 (commit 0123456789ab), MicroPython v1.28.0" in out
    assert "would copy it onto the RPI-RP2 drive at %s" % d in out
    assert sorted(p.name for p in d.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]


def test_writes_the_image_onto_the_drive(tmp_path, capsys):
    d = drive(tmp_path)
    src = image(tmp_path)
    code, out, _ = call(capsys, "flash", str(src), "--drive", str(d), "--wait", "0")
    assert code == 0 and "wrote" in out
    assert (d / "mjtable-pico.uf2").read_bytes() == src.read_bytes()


def test_finds_the_drive_in_the_mount_table(tmp_path, monkeypatch):
    d = drive(tmp_path)
    other = tmp_path / "usbstick"
    other.mkdir()
    (other / "INFO_UF2.TXT").write_text("Board-ID: SOMETHING-ELSE\r\n")
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/sdb1 %s vfat rw 0 0\n/dev/sdc1 %s vfat rw 0 0\n" % (other, d))
    monkeypatch.setattr(U, "MOUNTS", str(mounts))
    assert U.find_drive() == str(d)


def test_refuses_what_is_not_a_table_image_or_not_a_boot_drive(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(U, "mounted_folders", lambda: [])
    monkeypatch.setattr(U, "picotool", lambda: None)  # no picotool either
    d = drive(tmp_path)
    stock = tmp_path / "stock.uf2"
    stock.write_bytes(uf2(b"MicroPython v1.28.0 on 2026-12-01" + bytes(600)))
    other = tmp_path / "rp2350.uf2"
    other.write_bytes(uf2(MARK + bytes(600), family=0xE48BFF59))
    junk = tmp_path / "junk.uf2"
    junk.write_bytes(b"not a uf2")
    cases = [
        ([str(stock), "--drive", str(d)], "no table firmware in this image"),
        ([str(other), "--drive", str(d)], "is not for an RP2040"),
        ([str(junk), "--drive", str(d)], "not a UF2 file"),
        ([str(tmp_path / "none.uf2")], "No such file"),
        ([str(image(tmp_path)), "--drive", str(tmp_path)], "is not a Pico in BOOTSEL mode"),
        ([str(image(tmp_path))], "no Pico in BOOTSEL mode: hold its BOOTSEL button"),
    ]
    for argv, msg in cases:
        code, out, err = call(capsys, "flash", *argv)
        assert code == 2 and msg in err, (argv, err)
    assert sorted(p.name for p in d.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]


def test_a_table_answering_another_firmware_fails_the_flash(tmp_path, capsys, monkeypatch):
    """After the copy, the table on the link must name the image's firmware
    and commit: one answering another commit (the old firmware still
    running: the copy did not take) fails the flash, saying both."""
    from mjtable.firmware import check
    from mjtable.link import port as findport

    answers = [{"fw": "0.5.0", "commit": "ffffffffffff", "mpy": "1.28.0"}]

    class Link:
        class stream:
            def close():
                pass

        def info(self):
            return answers[0]

    monkeypatch.setattr(findport, "connect", lambda args: Link())
    monkeypatch.setattr(check.time, "sleep", lambda s: None)
    d = drive(tmp_path)
    argv = ["flash", str(image(tmp_path)), "--drive", str(d), "--port", "/dev/null"]
    code, _, err = call(capsys, *argv)
    assert code == 2 and ("the table answers firmware 0.5.0 commit ffffffffffff, the image "
                          "holds 0.5.0 commit 0123456789ab") in err
    answers[0] = dict(answers[0], commit="0123456789ab")
    code, out, _ = call(capsys, *argv)
    assert code == 0 and "the table answers: firmware 0.5.0 (commit 0123456789ab)" in out
