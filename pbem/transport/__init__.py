"""Mail in and out: one email's text (``message``), the inbox (``pbem inbox``: mbox, Maildir, and
``imap``), the outbox (``pbem send``: SMTP), and what they share (``common``). Game-agnostic."""
