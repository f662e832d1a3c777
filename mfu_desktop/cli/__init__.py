"""The ``mfu`` command line: one module per command over the same engine as the desktop app, headless.

:mod:`.main` builds the parser from each command module's ``add_command`` (one line per command)
and runs it; :mod:`.common` and :mod:`.profile_options` hold what several commands share.
"""
