"""docs/python.md's tutorial: its ```python blocks run in order in one namespace, from a folder
where assets/ and scenes/ are the source tree's (the PNG it draws is written there)."""
import os
import re

from conftest import source


def test_tutorial(tmp_path, monkeypatch):
    with open(source("docs", "python.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)
    assert len(blocks) >= 4
    for d in ("assets", "scenes"):
        os.symlink(source(d), tmp_path / d)
    monkeypatch.chdir(tmp_path)
    ns = {}
    for k, code in enumerate(blocks):
        exec(compile(code, "docs/python.md block %d" % (k + 1), "exec"), ns)
    assert (tmp_path / "clearance.png").stat().st_size > 1000
