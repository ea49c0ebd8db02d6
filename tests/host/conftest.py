"""Fixtures the host tests share."""

import pytest


@pytest.fixture
def env(tmp_path, monkeypatch, request):
    """A private key file (the test module's KEY) and archive for mjtable."""
    monkeypatch.setenv("MJTABLE_KEYFILE", str(tmp_path / "key"))
    monkeypatch.setenv("MJTABLE_ARCHIVE", str(tmp_path / "archive.sqlite"))
    monkeypatch.delenv("MJTABLE_KEY", raising=False)
    (tmp_path / "key").write_text(request.module.KEY.hex())
    return tmp_path
