def test_import():
    import convo

    assert convo.__version__
