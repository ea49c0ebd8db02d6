"""Fixtures the host tests share."""

import os

import pytest


@pytest.fixture
def env(tmp_path, monkeypatch, request):
    """A private key file (the test module's KEY) and archive for mjtable."""
    monkeypatch.setenv("MJTABLE_KEYFILE", str(tmp_path / "key"))
    monkeypatch.setenv("MJTABLE_ARCHIVE", str(tmp_path / "archive.sqlite"))
    monkeypatch.delenv("MJTABLE_KEY", raising=False)
    (tmp_path / "key").write_text(request.module.KEY.hex())
    return tmp_path


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """(event file, logs folder) of test_event_standings' generated event,
    made once for every event test module (the sheets', PostgreSQL's)."""
    import test_event_standings

    return test_event_standings.generate(str(tmp_path_factory.mktemp("gen")))


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL server of this test run (tools/pgtemp.py); each test makes
    its own database in it (pg.create_db)."""
    import pgtemp

    why = pgtemp.available()
    if why:
        pytest.skip("PostgreSQL tests skipped: %s" % why)
    server = pgtemp.PgTemp().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (Debian's), driven by Playwright, for a test module."""
    from bench_live import BROWSER_ARGS, CHROMIUM

    pw_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip("no /usr/bin/chromium (Debian's chromium package)")
    with pw_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield b
        b.close()
