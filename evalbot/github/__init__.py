"""Everything evalbot says to GitHub and reads from the runner; the only package that imports
PyGithub, requests and urllib3. The client (``client.py``) turns every exception into a one-line
:class:`~evalbot.errors.PublishError` (``errors.py``); the token never appears in a message, a
log line or a ``repr``. GitHub's size limits are in :mod:`evalbot.limits`.
"""
