"""Comments on a pull request, and the one sticky comment evalbot keeps there."""

from __future__ import annotations

import logging

from github.IssueComment import IssueComment

from evalbot.github.connection import Connection, fit
from evalbot.github.errors import PERMISSION_COMMENTS, PERMISSION_PULLS_READ, GitHubRequestError
from evalbot.github.records import CommentInfo, comment_info
from evalbot.limits import MAX_COMMENT_CHARS

__all__ = ["Comments"]

log = logging.getLogger(__name__)


class Comments(Connection):
    def list_comments(self, number: int) -> list[CommentInfo]:
        with self._errors(f"listing the comments of pull request #{number}", PERMISSION_PULLS_READ):
            return [comment_info(c) for c in self._repo.get_issue(number).get_comments()]

    def create_comment(self, number: int, body: str) -> CommentInfo:
        body = fit(body, MAX_COMMENT_CHARS, "comment")
        return self._post(
            f"commenting on pull request #{number}",
            PERMISSION_COMMENTS,
            lambda: comment_info(self._repo.get_issue(number).create_comment(body)),
        )

    def update_comment(self, comment_id: int, body: str) -> CommentInfo:
        body = fit(body, MAX_COMMENT_CHARS, "comment")
        with self._errors(f"updating comment {comment_id}", PERMISSION_COMMENTS):
            comment = self._comment(comment_id)
            comment.edit(body)
            return comment_info(comment)

    def delete_comment(self, comment_id: int) -> None:
        with self._errors(f"deleting comment {comment_id}", PERMISSION_COMMENTS):
            self._comment(comment_id).delete()

    def upsert_sticky_comment(
        self, number: int, marker: str, body: str, *, author: str, author_type: str
    ) -> CommentInfo:
        """Publish ``body`` as the one comment of ``author`` carrying ``marker``.

        Only comments written by ``author`` (of ``author_type``: ``Bot`` for an App's bot user
        such as ``github-actions[bot]``, ``User`` for a personal token's) are ever edited or
        deleted: anyone can post the marker's text, and someone else's comment is theirs. The
        oldest of ours holding ``marker`` is edited in place; if there is none, one is created,
        and the comments are listed again: when a concurrent run created one too, the oldest
        of ours is kept (updated with ``body``) and our later duplicates are deleted.
        """
        if marker not in body:
            body = f"{marker}\n{body}"

        def ours() -> list[CommentInfo]:
            return [
                c
                for c in self.list_comments(number)
                if marker in c.body and c.author == author and c.author_type == author_type
            ]

        existing = ours()
        if existing:
            keep = existing[0]
            self._delete_duplicates(existing[1:])
            if keep.body == fit(body, MAX_COMMENT_CHARS, "comment"):
                return keep
            return self.update_comment(keep.id, body)
        created = self.create_comment(number, body)
        after = ours()
        if not after or after[0].id == created.id:
            self._delete_duplicates(after[1:])
            return created
        keep = after[0]
        log.info(
            "another run commented on #%d at the same time; keeping comment %d", number, keep.id
        )
        self._delete_duplicates(after[1:])
        return self.update_comment(keep.id, body)

    def _delete_duplicates(self, comments: list[CommentInfo]) -> None:
        for comment in comments:
            try:
                self.delete_comment(comment.id)
            except GitHubRequestError as error:
                if error.status != 404:  # 404: the concurrent run deleted it already
                    raise

    def _comment(self, comment_id: int) -> IssueComment:
        return IssueComment(
            self._gh.requester, url=f"{self._repo.url}/issues/comments/{comment_id}"
        )
