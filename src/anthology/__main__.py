from anthology.cli import main

if __name__ == "__main__":  # guarded: the indexer's worker processes re-import __main__
    raise SystemExit(main())
