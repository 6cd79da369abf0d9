"""Headless Chromium for the page checks (ops_page_check.py, verify_page_check.py): one run of
Debian's chromium in a throwaway profile, its output captured."""
import os
import shutil
import subprocess
import tempfile

#: Where Chromium is, unless a check is told otherwise.
DEFAULT = shutil.which("chromium") or "/usr/bin/chromium"


def run(binary, *arguments, prefix="page-chromium-"):
    """Runs `binary` headless with `arguments`; returns the finished process (text output)."""
    profile = tempfile.mkdtemp(prefix=prefix)
    try:
        command = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                   "--no-first-run", "--user-data-dir=" + profile, *arguments]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class Failed(Exception):
    """Chromium did not do what it was asked; the message says why."""


def missing(binary):
    """A reason when there is no Chromium at `binary`, else None."""
    return None if os.path.exists(binary) else f"no chromium at {binary} (deploy/local/setup installs Debian's chromium)"


def dump_dom(binary, url, budget_ms, prefix="page-chromium-"):
    """The DOM of `url` once its scripts ran for `budget_ms` of virtual time."""
    dumped = run(binary, f"--virtual-time-budget={budget_ms}", "--dump-dom", url, prefix=prefix)
    if dumped.returncode != 0 or "<body" not in dumped.stdout:
        raise Failed(f"chromium failed ({dumped.returncode}): {dumped.stderr[-2000:]}")
    return dumped.stdout


def screenshot(binary, url, budget_ms, size, path, prefix="page-chromium-"):
    """Saves a picture of `url` (`size`: "WIDTH,HEIGHT") at `path`."""
    shot = run(binary, f"--virtual-time-budget={budget_ms}", "--hide-scrollbars", f"--window-size={size}",
               "--screenshot=" + os.path.abspath(path), url, prefix=prefix)
    if shot.returncode != 0 or not os.path.exists(path):
        raise Failed(f"no screenshot ({shot.returncode}): {shot.stderr[-2000:]}")
