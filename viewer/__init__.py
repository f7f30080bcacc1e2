"""sgview: a GPU-rendered viewer that makes scene-graph transform propagation visible.

``viewer.show(graph)``, ``viewer.widget(graph)`` (in a notebook),
``viewer.render_image(graph)``, ``viewer.Look`` and ``viewer.ShowOptions`` (see
`viewer.embed.api`), and ``viewer.publish(graph, "127.0.0.1:7878")`` (a running program's
frames sent to ``sgview listen``: `viewer.attach.publisher`) are loaded on first use, so
``import viewer`` stays light: no GL until a picture is asked for.
"""

__version__ = "0.1.0"
__all__ = ["Look", "ShowOptions", "publish", "render_image", "show", "widget"]


def __getattr__(name: str):
    if name == "publish":
        from viewer.attach.publisher import publish

        return publish
    if name in __all__:
        import viewer.embed.api as embed

        return getattr(embed, name)
    raise AttributeError(f"module 'viewer' has no attribute {name!r}")
