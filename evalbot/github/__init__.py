"""Every call evalbot makes to GitHub. The only package that imports PyGithub (and requests
and urllib3, which it rides on).

:func:`make_client` builds the one :class:`GitHubClient` of a run, with retries and throttling
taken from its arguments so tests can turn every wait off. The client hands out frozen
dataclasses (:class:`PullRequestInfo`, :class:`CommentInfo`, ...), never PyGithub objects, and
turns every PyGithub or requests exception into an :class:`~evalbot.errors.PublishError` whose
one-line message says what failed and, for 401/403/404, which ``permissions:`` the workflow
needs; a :class:`GitHubRequestError` carries what GitHub's answer meant as its ``kind``.

The token never appears in a message, a log line or a ``repr``.

Where things are: ``client.py`` (the client, :func:`make_client`), ``records.py`` (what it
hands out), ``errors.py`` (GitHub's answers as errors and messages), ``retry.py`` (waits and
retries), ``connection.py`` (what the parts share), ``pulls.py``, ``comments.py``,
``check_runs.py``, ``runs.py`` and ``download.py`` (the calls, by part). GitHub's size limits
are in :mod:`evalbot.limits`."""
