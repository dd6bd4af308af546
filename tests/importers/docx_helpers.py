"""Small Word documents for the .docx tests, written with the standard library.

A document is a list of paragraphs; a paragraph is a list of runs; a run is text, with
``\\n`` for a line break (``<w:br/>``) and ``\\t`` for a tab (``<w:tab/>``). ``avatar``
puts a drawing at the start of each paragraph (Teams puts the speaker's picture there)
and ``tab_stops`` gives each paragraph properties with tab stops (which are not text).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_AVATAR = (
    '<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/'
    'wordprocessingDrawing"><wp:docPr id="1" name="Picture 1" descr="avatar"/></wp:inline>'
    "</w:drawing></w:r>"
)


def _run(text: str) -> str:
    out = []
    for i, piece in enumerate(text.split("\n")):
        if i:
            out.append("<w:br/>")
        for j, part in enumerate(piece.split("\t")):
            if j:
                out.append("<w:tab/>")
            if part:
                out.append(f'<w:t xml:space="preserve">{escape(part)}</w:t>')
    return "<w:r><w:rPr><w:b/></w:rPr>" + "".join(out) + "</w:r>"


def document_xml(paras: list[list[str]], *, avatar: bool = False, tab_stops: bool = False) -> str:
    body = []
    for runs in paras:
        props = (
            '<w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>' if tab_stops else ""
        )
        lead = _AVATAR if avatar and runs else ""
        body.append(f"<w:p>{props}{lead}{''.join(_run(r) for r in runs)}</w:p>")
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<w:document xmlns:w="{W}"><w:body>{"".join(body)}<w:sectPr/></w:body></w:document>'
    )


def write_docx(path: Path, paras: list[list[str]], **kw: bool) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", _TYPES)
        zf.writestr("_rels/.rels", _RELS)
        zf.writestr("word/document.xml", document_xml(paras, **kw))
    return path
