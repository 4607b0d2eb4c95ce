"""User errors of the `graphcell` command: one line on stderr and exit status 2."""


class UserError(Exception):
    """A mistake in what the user asked for (a missing file, an unknown name, a bad shape).
    `main` prints its message as one line and exits with status 2 (`--debug`: the traceback)."""


def one_line(error: BaseException) -> str:
    """An exception's message on one line: its lines joined with '; ' (list bullets dropped)."""
    text = ""
    for part in str(error).splitlines():
        part = part.strip()
        if part.startswith("- "):
            part = part[2:]
        if part:
            text += part if not text else (" " if text.endswith(":") else "; ") + part
    return text or type(error).__name__
