"""Embedding: `viewer.show`, `viewer.widget` and `viewer.render_image` for a user's own graph,
and the notebook widget that shows it in Jupyter."""
