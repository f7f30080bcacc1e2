import numpy as np


def test_a_rotation_typed_number_by_number_is_one_undo_step_named_in_words(edit_open):
    """Three numbers typed into the rotation field with Tab between them and Enter at the
    end: the inspector commits each number as it leaves it, and the editing room merges
    them into one step named by the value (it was three "set Obj5.local_euler" steps)."""
    d, session, node, edit = edit_open((800, 1000))
    before = node.local_position.copy()
    x0 = edit.field_rects["local_euler"][0]
    d.click(x0.x + 6, x0.y + 6)
    for text, key in (("10", "TAB"), ("20", "TAB"), ("30", "ENTER")):
        for char in text:
            d.app.on_unicode_char_entered(char)
            d.frame()
        d.press(key)
        d.frame(2)
    np.testing.assert_allclose(node.local_euler, (10.0, 20.0, 30.0), atol=1e-9)
    assert session.editing.history.labels() == (["rotate Obj5 to (10, 20, 30)°"], [])
    session.editing.undo()
    np.testing.assert_allclose(node.local_euler, (0.0, 0.0, 0.0), atol=1e-12)
    np.testing.assert_array_equal(node.local_position, before)
