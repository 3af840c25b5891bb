"""The bottom layer, shared by all: type vocabulary, tree helpers, records, the on-disk cache."""
