"""The driver of a served screen: Textual's web driver, ending the app when its server is gone.

textual-serve talks to each app it starts through the app's stdin and stdout. Textual's ``WebDriver`` stops
reading when stdin ends but leaves the app running — with nobody left to see or drive it, and nothing to
tell it to stop. A server killed with SIGKILL (or crashed) thus left one such app per open tab. This driver
asks the app to exit when its stdin ends; the judging app then leaves as on ``q`` (what it had queued is in
its journal, which the next window of the same assessor saves).
"""

from __future__ import annotations

import contextlib

from textual.drivers.web_driver import WebDriver


class ServedDriver(WebDriver):
    """``WebDriver`` whose app exits when the server's end of its stdin closes."""

    def run_input_thread(self) -> None:
        try:
            super().run_input_thread()
        finally:
            if not self.exit_event.is_set():  # stdin ended, not the app: the server is gone
                with contextlib.suppress(Exception):  # the app may be ending already
                    self._app.call_from_thread(self._app.exit)
