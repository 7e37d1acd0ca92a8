"""The one error type the command line turns into a clear message (no traceback)."""


class LuzaError(Exception):
    """Bad input or a failed step that a user can act on; the message says what and where."""
