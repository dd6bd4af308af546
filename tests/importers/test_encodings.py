"""Text that declares no encoding (``convo.core.encoding``): guessed per file or mail part,
told in a warning, overridden by ``--encoding`` (issue 36 §2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.encoding import LineDecoder, guess_encoding, label
from convo.core.errors import UsageError
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest

DIR = Path(__file__).resolve().parents[1] / "fixtures" / "encodings"


def run(path: Path, **opts):
    """(records, warnings) of one file through the whole ingest (detection included)."""
    warnings: list[str] = []
    rejects: list = []
    ing = Ingest(ImportOptions(**opts), on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in ing.messages([path])]
    assert not rejects
    return recs, warnings


def texts(recs) -> list[str]:
    return [r["textChunks"][0] for r in recs]


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("Đino, dođavola. Što radiš? Ne znam, čovječe. Šuti!", "cp1250"),
        ("Příliš žluťoučký kůň úpěl ďábelské ódy.", "cp1250"),
        ("Zażółć gęślą jaźń. Proszę bardzo, dziękuję.", "cp1250"),
        ("Привет, как дела? Что ты делаешь?", "cp1251"),
        ("Привет, как дела? Что ты делаешь?", "koi8_r"),
        ("José a dit: « Ça va très bien, merci ». Où êtes-vous?", "cp1252"),
        ("Müller: Grüße aus Köln", "latin-1"),
        ("Günaydın, nasılsın? Şimdi çalışıyorum.", "cp1254"),
        ("Καλημέρα, τι κάνεις;", "cp1253"),
        ("שלום, מה שלומך? אני בסדר גמור, תודה רבה לך. מה אתה עושה היום?", "cp1255"),
        ("こんにちは、元気ですか？今日はいい天気ですね。", "shift_jis"),
        ("你好，今天天气很好。我们去公园吧。", "gb18030"),
        ("你好，今天天氣很好。我們去公園吧。", "big5"),
        ("안녕하세요, 오늘 날씨가 좋네요.", "euc_kr"),
    ],
)
def test_guess_reads_the_text_back(text, codec):
    guess = guess_encoding(text.encode(codec))
    assert text.encode(codec).decode(guess.encoding) == text
    assert 0 < guess.confidence <= 100


def test_a_short_ambiguous_line_is_told_as_unsure():
    # Đ/đ alone could be Turkish Ğ or Lithuanian Š: still cp1250 (the commonest), but unsure
    guess = guess_encoding("Đino, dođavola.".encode("cp1250"))
    assert guess.encoding == "cp1250" and guess.confidence < 50


def test_labels_are_the_usual_names():
    assert [label(c) for c in ("cp1251", "iso8859_2", "koi8_r", "latin-1")] == [
        "windows-1251",
        "iso-8859-2",
        "koi8-r",
        "iso-8859-1",
    ]


def test_srt_in_windows_1250_without_bom():
    recs, warnings = run(DIR / "hr-cp1250.srt")
    assert texts(recs) == ["Đino, dođavola. Što radiš?", "Ne znam, čovječe. Šuti i slušaj!"]
    assert len(warnings) == 1
    assert "read as windows-1250 (guessed, " in warnings[0]
    assert "use --encoding to override" in warnings[0]


@pytest.mark.parametrize("name", ["ru-cp1251.srt", "ru-cp1251.sbv"])
def test_cyrillic_subtitles(name):
    recs, warnings = run(DIR / name)
    assert texts(recs)[0] == "Привет, как дела?"
    assert [w.split(": ", 1)[1].split(" (")[0] for w in warnings] == [
        "text that is not UTF-8 read as windows-1251"
    ]


def test_encoding_option_overrides_the_guess_and_says_nothing():
    recs, warnings = run(DIR / "ru-cp1251.srt", encoding="koi8-r")
    assert texts(recs)[0] == "Привет, как дела?".encode("cp1251").decode("koi8_r")
    assert not warnings


def test_unknown_encoding_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown --encoding 'klingon'"):
        ImportOptions(encoding="klingon")


def test_utf8_is_read_without_a_warning(tmp_path):
    p = tmp_path / "u.srt"
    p.write_bytes("1\n00:00:01,000 --> 00:00:02,000\nĐino, dođavola.\n\n".encode())
    recs, warnings = run(p)
    assert texts(recs) == ["Đino, dođavola."] and not warnings


def test_irc_log_mixing_utf8_and_cp1251_lines():
    recs, warnings = run(DIR / "#mixed.log")
    assert texts(recs) == ["Grüße aus Köln", "Привет всем, как дела у вас?", "👍 schön"]
    assert len(warnings) == 1 and "windows-1251" in warnings[0]


def test_whatsapp_text_export_in_cp1252():
    recs, warnings = run(DIR / "whatsapp-cp1252.txt")
    assert [r["metadata"]["speaker"] for r in recs] == ["José Muñoz", "Zoë Brontë"]
    assert texts(recs)[1] == "Très bien, à demain!"
    assert len(warnings) == 1 and "windows-1252" in warnings[0]


def test_signal_chat_md_in_cp1251(tmp_path):
    folder = tmp_path / "Борис"
    folder.mkdir()
    (folder / "chat.md").write_bytes(
        "[2019-05-29 15:04:33] Борис: Привет, как дела?\n\n"
        "[2019-05-29 15:10:02] Аня: Ничего особенного, спасибо.\n\n".encode("cp1251")
    )
    recs, warnings = run(folder / "chat.md")
    assert [r["metadata"]["speaker"] for r in recs] == ["Борис", "Аня"]
    assert len(warnings) == 1 and "windows-1251" in warnings[0]


def test_mail_headers_and_parts_without_a_charset():
    recs, warnings = run(DIR / "latin1.mbox")
    first, second = recs
    assert first["metadata"]["speaker"] == "José García <jose@example.com>"
    assert first["subject"] == "Café mañana"
    assert first["textChunks"] == ["Hola, ¿qué tal? Mañana en el café."]
    assert second["metadata"]["speaker"] == "Анна Петрова <anna@example.com>"
    assert second["subject"] == "Привет из Москвы"
    assert second["textChunks"] == ["Привет, как дела? Ничего особенного, спасибо."]
    assert not any("\\udc" in str(r) or "\ufffd" in str(r) for r in recs)
    # the first message's raw bytes are in the charset its encoded word declares
    kinds = sorted(w.split(": ", 1)[1].split(" (")[0] for w in warnings)
    assert kinds == [
        "8-bit header bytes without a charset read as windows-1251",
        "a text part without a charset read as windows-1251",
        "a text part without a charset read as windows-1252",
    ]


def test_mail_encoding_option():
    recs, warnings = run(DIR / "latin1.mbox", encoding="cp1251")
    assert recs[1]["textChunks"] == ["Привет, как дела? Ничего особенного, спасибо."]
    assert recs[1]["subject"] == "Привет из Москвы"
    assert recs[0]["subject"] == "Café mañana"  # declared (its From's encoded word): kept
    assert recs[0]["textChunks"][0] == "Hola, ¿qué tal? Mañana en el café.".encode(
        "latin-1"
    ).decode("cp1251")
    assert not warnings


def test_encoded_word_beside_raw_8bit_bytes():
    from convo.importers.email.charsets import decode_words

    raw = b"Mar\xeda =?utf-8?q?Garc=C3=ADa?= <m@x.org>".decode("ascii", "surrogateescape")
    assert decode_words(raw) == "María García <m@x.org>"
    raw = b"=?utf-8?q?Jos=C3=A9?= =?utf-8?q?_Luis?= Garc\xeda".decode("ascii", "surrogateescape")
    assert decode_words(raw) == "José Luis García"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=30), min_size=1, max_size=8),
    st.sampled_from(["cp1251", "cp1252", "cp1250"]),
)
def test_line_decoder_keeps_utf8_lines_and_never_raises(lines, codec):
    told = []
    decode = LineDecoder(b"", None, told.append)
    for line in lines:
        data = line.encode("utf-8")
        assert decode(data) == line  # UTF-8 lines stay UTF-8
        legacy = line.encode(codec, "replace")
        decode(legacy)  # never raises
    assert len(told) <= 1


def test_fit_of_letters_that_lower_to_two():
    from convo.core.encoding import fit

    assert 0 <= fit("İstanbul'da İzmir") <= 1


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=300))
def test_guess_never_raises(data):
    guess = guess_encoding(data)
    data.decode(guess.encoding, "replace")
    assert 0 <= guess.confidence <= 100
