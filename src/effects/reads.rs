//! Reads of a host at an instant: its owned tags less what effects that
//! [ended lazily](super::EffectDef::ends_lazily) still hold (see
//! `lazy.rs`), whole ([`EffectHost::tags`]), one tag at a time
//! ([`EffectHost::has_tag`]) or for requirements that may need none of
//! them ([`TagsAt`]). Every read of an entity's tags takes the clock: an
//! ended effect keeps its references until the context next changes the
//! entity, and a read between subtracts them.

use std::borrow::Cow;
use std::cell::OnceCell;

use super::def::EffectDefs;
use super::host::EffectHost;
use crate::tags::{Tag, TagCounts, TagQuery, TagSet};
use crate::time::SimTime;

impl EffectHost {
    /// The owned tags at `now`, with their counts: effect-granted, loose
    /// and ability-owned, less what lazily ending effects that ended by
    /// then still hold. Borrowed unless such an effect is waiting to be
    /// cleared.
    ///
    /// Every read of an entity's tags takes the clock: an effect that
    /// [ends lazily](super::EffectDef::ends_lazily) keeps its tags counted
    /// here until the context next touches the host, and is subtracted.
    #[inline]
    pub fn tags(&self, defs: &EffectDefs, now: SimTime) -> Cow<'_, TagCounts> {
        if !self.lazy_ends_due(now) {
            return Cow::Borrowed(&self.tags);
        }
        Cow::Owned(self.tags_without_ended(defs, now))
    }

    /// Parent-aware: is `tag`, or a tag below it, owned at `now`? As
    /// [`tags`](Self::tags) answers, without a copy of the counts.
    #[inline]
    pub fn has_tag(&self, defs: &EffectDefs, now: SimTime, tag: Tag) -> bool {
        self.tags.tags().has(tag)
            && (!self.lazy_ends_due(now) || self.holds_beyond_ended(defs, now, |t| t.matches(tag)))
    }

    /// Is exactly `tag` owned at `now`? As [`tags`](Self::tags) answers,
    /// without a copy of the counts.
    #[inline]
    pub fn has_exact_tag(&self, defs: &EffectDefs, now: SimTime, tag: Tag) -> bool {
        self.tags.tags().has_exact(tag)
            && (!self.lazy_ends_due(now) || self.holds_beyond_ended(defs, now, |t| t == tag))
    }

    /// Does some owned tag `pick` accepts have more references than the
    /// effects that ended lazily by `now` still hold on it?
    #[inline(never)]
    fn holds_beyond_ended(
        &self,
        defs: &EffectDefs,
        now: SimTime,
        pick: impl Fn(Tag) -> bool,
    ) -> bool {
        self.tags
            .iter()
            .filter(|&(t, _)| pick(t))
            .any(|(t, count)| {
                let ended = self
                    .effects
                    .values()
                    .filter(|e| e.has_ended(now) && !e.inhibited)
                    .filter(|e| defs.def(e.def).granted_tags.has_exact(t))
                    .count();
                count as usize > ended
            })
    }

    /// The owned tags at `now` for a read that may need none of them
    /// (requirements that state nothing, a gate on one tag): see
    /// [`TagsAt`].
    pub(crate) fn tags_at<'a>(&'a self, defs: &'a EffectDefs, now: SimTime) -> TagsAt<'a> {
        TagsAt {
            host: self,
            defs,
            now,
            copy: OnceCell::new(),
        }
    }

    /// [`tags`](Self::tags) when some lazy end may be due.
    #[inline(never)]
    fn tags_without_ended(&self, defs: &EffectDefs, now: SimTime) -> TagCounts {
        let mut tags = self.tags.clone();
        for effect in self.effects.values() {
            if effect.has_ended(now) && !effect.inhibited {
                let _ = tags.remove_each(&defs.def(effect.def).granted_tags, |_| {});
            }
        }
        tags
    }
}

/// A host's owned tags at an instant, for a read that may need none of
/// them, or one: the whole set (copied less the references of effects
/// that ended lazily, while some still hold theirs) is made only when a
/// stated requirement asks for it. An ability whose blocked and required
/// tags state nothing, asked every frame by AI or UI about an idle entity
/// whose cooldown ended unseen, never copies.
pub(crate) struct TagsAt<'a> {
    host: &'a EffectHost,
    defs: &'a EffectDefs,
    now: SimTime,
    copy: OnceCell<Cow<'a, TagCounts>>,
}

impl TagsAt<'_> {
    /// Every owned tag.
    pub fn set(&self) -> &TagSet {
        self.copy
            .get_or_init(|| self.host.tags(self.defs, self.now))
            .tags()
    }

    /// Parent-aware: `tag` or a tag below it is owned.
    pub fn has(&self, tag: Tag) -> bool {
        self.host.has_tag(self.defs, self.now, tag)
    }

    /// Does `query` hold? One that states nothing holds without a look;
    /// while an effect that ended lazily holds some tags, each tag the
    /// query names is asked for alone, with no copy of the set.
    pub fn meet(&self, query: &TagQuery) -> bool {
        if query.is_empty() {
            return true;
        }
        if !self.host.lazy_ends_due(self.now) {
            return query.matches(self.host.tags.tags());
        }
        query.matches_by(&|tag| self.has(tag))
    }
}
