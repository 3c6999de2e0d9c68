from __future__ import annotations

from opsassist.cli import main

raise SystemExit(main())
