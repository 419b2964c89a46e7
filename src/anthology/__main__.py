from anthology.cli import main

raise SystemExit(main())
