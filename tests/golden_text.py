"""Golden-text assertions: `GRAPHCELL_ACCEPT=1 pytest ...` rewrites the expected files, and
reviews read their diff (expecttest's EXPECTTEST_ACCEPT)."""
import os
from pathlib import Path

GOLDEN_DIR = Path(__file__).parent / "golden_ir"


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN_DIR / name
    if os.environ.get("GRAPHCELL_ACCEPT") == "1" or not path.exists() and os.environ.get("CI") != "true":
        path.write_text(text + "\n")
        return
    expected = path.read_text().rstrip("\n")
    assert text == expected, (f"{name} differs from the golden text; if the change is intended, "
                              f"rerun with GRAPHCELL_ACCEPT=1 and review the diff.\n--- got ---\n{text}")
