"""The Amazon Translate adapter (repo/translate.py) against botocore's Stubber — no request
leaves the process — and the LibreTranslate client's refusals of answers that are not one."""

from __future__ import annotations

import pytest
from botocore.stub import Stubber
from stratus.core import translation as service
from stratus.repo import client
from stratus.repo import translate as amazon


@pytest.fixture
def stub(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    translate = client.client("translate")
    with Stubber(translate) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def test_languages_each_to_every_other(stub):
    stub.add_response("list_languages", {"Languages": [
        {"LanguageName": "English", "LanguageCode": "en"},
        {"LanguageName": "Auto", "LanguageCode": "auto"}], "NextToken": "more"}, {})
    stub.add_response("list_languages", {"Languages": [
        {"LanguageName": "German", "LanguageCode": "de"}]}, {"NextToken": "more"})
    assert amazon.amazon_languages() == {"en": ["de"], "de": ["en"], None: ["de", "en"]}


def test_html_goes_as_a_document_and_text_as_text(stub):
    stub.add_response("translate_document", {
        "TranslatedDocument": {"Content": b"<p>Hallo</p>"}, "SourceLanguageCode": "en",
        "TargetLanguageCode": "de"},
        {"Document": {"Content": b"<p>Hello</p>", "ContentType": "text/html"},
         "SourceLanguageCode": "auto", "TargetLanguageCode": "de"})
    stub.add_response("translate_text", {"TranslatedText": "Warnung", "SourceLanguageCode": "en",
                                         "TargetLanguageCode": "de"},
                      {"Text": "Warning", "SourceLanguageCode": "auto",
                       "TargetLanguageCode": "de"})
    answers = amazon.amazon_translate([("<p>Hello</p>", True), ("Warning", False)], None, "de")
    assert [(a.text, a.detected_source_language, a.provider) for a in answers] == [
        ("<p>Hallo</p>", "en", "Amazon Translate"), ("Warnung", "en", "Amazon Translate")]


@pytest.mark.parametrize("code, error", [
    ("TooManyRequestsException", service.TooManyRequests),
    ("LimitExceededException", service.QuotaExceeded),
    ("UnsupportedLanguagePairException", service.Unexpected),
])
def test_amazons_errors_become_the_backends(stub, code, error):
    stub.add_client_error("translate_text", service_error_code=code)
    with pytest.raises(error):
        amazon.amazon_translate([("Hello", False)], "en", "de")


@pytest.mark.parametrize("answer", [
    b"not json", b'{"translatedText": "one text, not a list"}', b'{"translatedText": ["a"]}',
    b'[]'])
def test_a_libretranslate_answer_that_is_not_one_is_unexpected(answer):
    from http.server import BaseHTTPRequestHandler

    from local.loopback import Loopback

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = Loopback(Handler)
    try:
        with pytest.raises(service.Unexpected):
            service.libretranslate(server.url(""), "", ["a", "b"], "en", "de")
    finally:
        server.close()
