"""Wrong in no way: passes every check."""

import base

base.run()
