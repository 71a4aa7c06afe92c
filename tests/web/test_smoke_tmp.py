from tests.rig import post
def test_smoke(client, people, drain):
    _, t = people
    root = post(client, t["alice"], status="Hello #Cats world :blob: https://example.com/a/very/long/link/that/goes/on/and/on", spoiler_text="spoilers")
    reply = post(client, t["bob"], status="@alice nice", in_reply_to_id=root["id"])
    post(client, t["alice"], status="poll?", **{"poll[options][]": ["yes", "no"], "poll[expires_in]": "3600"})
    drain()
    for path in (f"/@alice/{root['id']}", "/@alice", "/tags/cats", "/@alice.rss", "/tags/cats.rss", f"/@alice/{root['id']}/embed", "/api/oembed?url=" + root["url"], f"/users/alice/statuses/{root['id']}"):
        r = client.get(path, follow_redirects=False)
        print(path, r.status_code, dict(r.headers))
        print(r.text.split("</style>")[-1][:3500])
