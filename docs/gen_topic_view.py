"""Draw docs/topic-view.png: the per-topic view of the example's audit, its degraded topic opened.

Runs ``trec-toolkit audit`` on a copy of the example workspace, opens ``audits/audit.html`` in headless
chromium (Playwright, /usr/bin/chromium, offline), filters to "Degraded", opens the topic and takes a
picture of the view. Run it from the repository root after a change to the view:

    .venv/bin/python docs/gen_topic_view.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "topic-view.png"
TOPIC = "frag-05"


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        for name in ("toolkit.toml", "topics", "runs", "qrels"):
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, ws / name)
        script = Path(sys.executable).parent / "trec-toolkit"
        subprocess.run([str(script), "audit"], cwd=ws, check=True, capture_output=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
            page.context.set_offline(True)
            page.goto((ws / "audits" / "audit.html").as_uri())
            page.select_option("#tv-bucket", "degraded")
            page.locator(f'#tv-list button:has(.tv-q:text-is("{TOPIC}"))').click()
            page.locator("#tv").screenshot(path=str(OUT))
            browser.close()
    print(f"Wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
