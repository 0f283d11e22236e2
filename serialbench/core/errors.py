"""The one error type the command line turns into a one-line message and exit status 2."""


class UsageError(Exception):
    """Bad input from the user: what was wrong and what is accepted, in one line."""
