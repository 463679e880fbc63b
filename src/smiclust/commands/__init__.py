"""Sub-commands of the ``smiclust`` command line, one module each.

Every module exposes ``add_parser(subparsers)`` and ``run(args) -> int``; heavy
imports happen inside ``run``.
"""

#: sub-command name -> module (imported only when needed)
COMMANDS = {
    "demo": "smiclust.commands.demo",
    "reproduce": "smiclust.commands.reproduce",
    "fit": "smiclust.commands.fit",
    "predict": "smiclust.commands.predict",
    "datasets": "smiclust.commands.datasets",
    "ask": "smiclust.commands.ask",
}
