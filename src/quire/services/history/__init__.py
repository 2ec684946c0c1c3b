"""History: saves recorded as git commits (``recorder``) and looking back (``service``)."""
