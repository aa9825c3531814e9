"""``python -m darkroad.api``: the ``darkroad`` command line without the installed script."""

from darkroad.api.cli import main

main()
