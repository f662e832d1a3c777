"""Clusters: rank documents, the figures of many ranks side by side, and a folder's analysis as one object."""
