"""The jinja2 environment evalbot renders in: sandboxed, escaping, and for a user's template
limited in what it reads, how long it runs, how much it writes and how deep it nests.

- **Escaping.** Every ``{{ value }}`` passes through the environment's ``finalize``: a
  :class:`~evalbot.report.text.Markdown` (and a number) is printed as it is, every other string is
  untrusted and escaped (:func:`evalbot.report.text.escape` in Markdown;
  :func:`evalbot.report.text.plain`,
  control characters shown as ``?``, in plain text). A macro's output is the template's own
  Markdown, so a macro call gives Markdown; ``str.format`` and the filters give plain strings,
  escaped when printed, except the few filters that escape their arguments themselves
  (``join``; in plain text also ``wordwrap``, ``indent``, ``replace`` and ``format``).
- **Reading.** :class:`TemplateFolder` serves a user's template only the files of its own
  folder (no absolute paths, no ``..``, no symbolic link out of the folder), and evalbot's
  bundled ``macros.md.j2``.
- **Limits** (:class:`Limits`, :func:`render_limited`): a time limit that stops any loop (a
  ``SIGALRM`` timer on the main thread, else a trace function of the rendering thread's own
  that raises from its next line past the deadline), an output limit checked while the output
  streams, a memory limit (the address space, on Linux) and a limit on nested macro calls;
  ``*`` and ``**`` refuse results too big to build."""
