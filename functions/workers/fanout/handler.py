"""SQS worker: home and list feeds — fan-out of new and deleted statuses in batches, follows
and list members merged in, unfollows/blocks/mutes/departures cleared out, returning users'
feeds rebuilt."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import fanout, fanout_lists

HANDLERS = {messages.FanOut: fanout.fan_out, messages.Deliver: fanout.deliver,
            messages.DeliverToLists: fanout_lists.deliver_to_lists,
            messages.FanOutToTag: fanout.fan_out_to_tag,
            messages.MergeIntoHome: fanout.merge_into_home,
            messages.ClearFromHome: fanout.clear_from_home,
            messages.RegenerateHome: fanout.regenerate_home,
            messages.AccountActive: fanout.account_active,
            messages.MergeIntoList: fanout_lists.merge_into_list,
            messages.ClearFromList: fanout_lists.clear_from_list,
            messages.DropList: fanout_lists.drop_list,
            messages.LeaveLists: fanout_lists.leave_lists}


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    handler = HANDLERS.get(type(job))
    if handler is None:
        raise ValueError(f"not a fan-out job: {job.name}")
    handler(job)


# A job writes one page of feeds (no outbound request): 15 s a job, and 10 s kept, within
# the 60 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=15, margin=10),
                            send_again=queues.send_again)
