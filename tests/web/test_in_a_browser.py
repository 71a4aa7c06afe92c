"""The public pages in a real browser (headless Chromium, tests/rig/browser.py) against the stack
on loopback: a post's link opens it (its content warning opens on a click), a private post's
link is refused, every link the API hands out opens a page, and every page has no serious or
critical axe-core violation and no horizontal scroll on a phone. A screenshot of each page is
kept under .artefacts/web/."""

from __future__ import annotations

from tests.rig import LiveStack, images


def _post(stack: LiveStack, name: str, **data) -> dict:
    return stack.call(name, "POST", "/api/v1/statuses", data=data)


def _world(live_server) -> tuple[LiveStack, dict[str, dict]]:
    stack = LiveStack(live_server)
    for name in ("alice", "bob"):
        stack.user(name)
    stack.call("alice", "PATCH", "/api/v1/accounts/update_credentials", data={
        "display_name": "Alice Liddell", "note": "Down the rabbit hole. #Wonderland",
        "fields_attributes[0][name]": "Home", "fields_attributes[0][value]": "https://alice.example"},
        files={"header": ("h.png", images.png(600, 200, (40, 90, 140)), "image/png"),
               "avatar": ("a.png", images.png(120, 120, (200, 120, 40)), "image/png")})
    media = stack.call("alice", "POST", "/api/v2/media", data={"description": "A teal square"},
                       files={"file": ("t.png", images.png(640, 360, (0, 128, 128)),
                                       "image/png")})
    posts = {
        "root": _post(stack, "alice", status="Tea party at https://example.com/a/very/long/path/"
                      "that/never/seems/to/end/at/all #Wonderland", **{"media_ids[]": [media["id"]]}),
        "private": _post(stack, "alice", status="only for followers: the hatter's secret",
                         visibility="private"),
    }
    posts["warned"] = _post(stack, "alice", status="The queen wins.", spoiler_text="ending")
    posts["poll"] = _post(stack, "alice", status="Which door?",
                          **{"poll[options][]": ["the small one", "the big one"],
                             "poll[expires_in]": "86400"})
    posts["reply"] = _post(stack, "bob", status="@alice I'll bring the jam #wonderland",
                           in_reply_to_id=posts["root"]["id"])
    stack.drain()
    return stack, posts


def test_a_posts_link_opens_in_a_browser_and_a_private_one_is_refused(web, live_server):
    from selenium.webdriver.common.by import By

    _, posts = _world(live_server)
    driver = web.open(posts["root"]["url"], "status")
    focus = driver.find_element(By.CSS_SELECTOR, "article.status.focus")
    assert "Tea party" in focus.text
    assert driver.find_element(By.CSS_SELECTOR, "img[alt='A teal square']").is_displayed()
    assert "I'll bring the jam" in driver.page_source  # the thread
    assert web.serious_violations() == []
    driver = web.open(posts["warned"]["url"], "content-warning")
    words = driver.find_element(By.CSS_SELECTOR, "article.focus .e-content")
    assert not words.is_displayed()  # collapsed behind its warning
    driver.find_element(By.CSS_SELECTOR, "article.focus summary").click()
    assert words.is_displayed() and "The queen wins." in words.text
    web.screenshot("content-warning-opened")
    driver = web.open(posts["private"]["url"], "private-refused")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Not found"
    assert "secret" not in driver.page_source
    web.phone()
    driver = web.open(posts["root"]["url"], "status-phone")
    assert web.overflow() == 0


def test_every_link_the_api_hands_out_opens_an_accessible_page(web, live_server):
    from selenium.webdriver.common.by import By

    stack, posts = _world(live_server)
    statuses = stack.call("bob", "GET", "/api/v1/timelines/public")
    links = {}
    for status in statuses:
        links[status["url"]] = "status"
        links[status["account"]["url"]] = "profile"
        links.update({t["url"]: "tag" for t in status["tags"]})
        links.update({m["url"]: "profile" for m in status["mentions"]})
    links[posts["root"]["uri"]] = "status-uri"
    assert "profile" in links.values() and "tag" in links.values()
    base = live_server.base_url
    pages = {**links, f"{base}/@alice/tagged/wonderland": "tagged",
             f"{posts['root']['url']}/embed": "embed", f"{base}/about": "about",
             f"{base}/@alice/999": "not-found"}
    for url, name in sorted(pages.items()):
        for width in ("desktop", "phone"):
            web.phone() if width == "phone" else web.desktop()
            driver = web.open(url, f"{name}-{width}")
            kind = driver.execute_script("return document.contentType")
            assert kind == "text/html", (url, kind)
            assert driver.find_element(By.TAG_NAME, "h1").text, url
            assert web.serious_violations() == [], (url, width)
            if width == "phone":
                assert web.overflow() == 0, url
