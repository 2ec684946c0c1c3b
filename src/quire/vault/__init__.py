"""The workspace folders: listing, watching and locating the Markdown files a server serves."""
