"""The store: what MFU Desktop keeps on disk — the per-user cache of parsed ranks and analyses, cluster summaries."""
