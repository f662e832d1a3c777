"""Reports: the figures of an analysis or a prediction as files and JSON documents."""
