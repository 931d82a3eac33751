"""``python -m capkit.cli ...``: the ``capkit`` command (for ``python -X importtime``)."""

from capkit.cli.main import main

if __name__ == "__main__":
    main(prog_name="capkit")
