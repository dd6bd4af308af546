"""XML safety of the Stack Exchange and phpBB readers: no entity expansion, no external entities."""

from __future__ import annotations

import pytest

from convo.core.errors import InputError
from convo.pipeline.ingest import Ingest

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE posts [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<posts><row Id="1" PostTypeId="1" Body="&lol9;" Title="t" /></posts>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE posts [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<posts><row Id="1" PostTypeId="1" Body="&xxe;" Title="t" /></posts>
"""

PARAMETER = """<?xml version="1.0"?>
<!DOCTYPE posts [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote;]>
<posts><row Id="1" PostTypeId="1" Body="x" /></posts>
"""

PHPBB_XXE = """<?xml version="1.0"?>
<!DOCTYPE dataset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<dataset><table name="phpbb_posts"><column>post_id</column><column>post_text</column>
<row><value>1</value><value>&xxe;</value></row></table></dataset>
"""


def _run(path, fmt):
    return [m.serialize() for m in Ingest(format_name=fmt).messages([path])]


@pytest.mark.parametrize(
    ("text", "fmt", "line"),
    [
        (BILLION_LAUGHS, "stackexchange", 3),
        (EXTERNAL, "stackexchange", 2),
        (PARAMETER, "stackexchange", 2),
        (PHPBB_XXE, "phpbb", 2),
    ],
)
def test_entities_refused(tmp_path, text, fmt, line):
    path = tmp_path / "evil.xml"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        _run(path, fmt)
    assert "unsafe XML refused" in e.value.what
    assert e.value.where == f"{path}:{line}"


def test_external_dtd_is_not_loaded(tmp_path):
    """A SYSTEM DTD (as in real dumps) is never fetched: its entities never expand."""
    (tmp_path / "posts.dtd").write_text('<!ENTITY secret "leaked">')
    path = tmp_path / "Posts.xml"
    path.write_text(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE posts SYSTEM 'posts.dtd'>\n"
        '<posts><row Id="1" PostTypeId="1" Body="ok" /></posts>'
    )
    assert _run(path, "stackexchange")[0]["textChunks"] == ["ok"]
    path.write_text(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE posts SYSTEM 'posts.dtd'>\n"
        '<posts><row Id="1" PostTypeId="1" Body="&secret;" /></posts>'
    )
    msgs = _run(path, "stackexchange")  # expat drops an undeclared entity in an attribute
    assert "leaked" not in str(msgs)
    path.write_text(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE posts SYSTEM 'posts.dtd'>\n"
        '<posts><row Id="1" PostTypeId="1" Body="x" />&secret;</posts>'
    )
    with pytest.raises(InputError, match="undeclared entity"):
        _run(path, "stackexchange")


def test_malformed_xml_is_located(tmp_path):
    path = tmp_path / "Posts.xml"
    path.write_text('<posts>\n<row Id="1" PostTypeId="1" Body="a" />\n<row Id="2"\n')
    with pytest.raises(InputError) as e:
        _run(path, "stackexchange")
    assert e.value.where.startswith(f"{path}:")
    assert "malformed XML" in e.value.what
