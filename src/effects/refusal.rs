//! Whether an [`EffectHost`] refuses a spec (application requirements,
//! the life rule, immunity), and the index of the active effects whose
//! definitions can refuse or react.

use smallvec::SmallVec;

use super::active::{ActiveEffect, EffectKey};
use super::def::{EffectDef, EffectDefs, EffectId};
use super::host::EffectHost;
use super::listening::ListeningKeys;
use crate::tags::TagSet;
use crate::time::SimTime;
use crate::trace::BlockReason;

impl EffectHost {
    /// The active effects that [listen](EffectDef::listens) to their host, in
    /// slot order.
    pub(super) fn listening_effects(&self) -> impl Iterator<Item = &ActiveEffect> + '_ {
        self.aside
            .listening()
            .as_slice()
            .iter()
            .map(|&k| &self.effects[k])
    }

    /// Rebuilds the index of listening effects from the effects themselves
    /// (after a restore, which does not save it).
    pub(crate) fn reindex(&mut self, defs: &EffectDefs) {
        let keys = ListeningKeys::of(self.listening_keys(defs));
        self.aside.set_listening(keys);
    }

    /// True when the index of listening effects is what
    /// [`reindex`](Self::reindex) would build (an invariant).
    pub(crate) fn index_agrees(&self, defs: &EffectDefs) -> bool {
        self.listening_keys(defs).as_slice() == self.aside.listening().as_slice()
    }

    /// The keys of the listening effects, by a walk over all of them.
    fn listening_keys(&self, defs: &EffectDefs) -> SmallVec<[EffectKey; 2]> {
        self.effects
            .iter()
            .filter(|(_, e)| defs.def(e.def).listens())
            .map(|(k, _)| k)
            .collect()
    }

    /// True when the game's `life` rule calls this owner dead.
    #[inline]
    pub(crate) fn is_dead(&self, defs: &EffectDefs) -> bool {
        defs.life().is_dead(self.tags.tags())
    }

    /// Why the host refuses `def` applied with `spec_tags` (the tags of
    /// the spec, all of it a refusal reads) before anything is evaluated
    /// or rolled: application requirements, the life rule, immunity.
    // Inlined: asked on every application, and a host holding no listening
    // effect (no immunity among them) needs no scan, whose set-up had cost
    // more than these tests.
    #[inline]
    pub(crate) fn refusal(
        &self,
        defs: &EffectDefs,
        def: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<BlockReason> {
        self.refusal_given(self.tags.tags(), defs, def, spec_tags)
    }

    /// [`refusal`](Self::refusal) on a host that may hold lazy ends not yet
    /// cleared, judged on its tags at `now` (which only application
    /// requirements read of them).
    #[inline]
    pub(crate) fn refusal_at(
        &self,
        now: SimTime,
        defs: &EffectDefs,
        def: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<BlockReason> {
        if def.application_requirements.is_empty() || !self.lazy_ends_due(now) {
            return self.refusal(defs, def, spec_tags);
        }
        self.refusal_given(self.tags(defs, now).tags(), defs, def, spec_tags)
    }

    /// [`refusal_at`](Self::refusal_at) as it would be once the host
    /// also held `granted` (another effect's granted tags, about to be
    /// applied first): a commit's cost judged after its cooldown.
    pub(crate) fn refusal_after(
        &self,
        now: SimTime,
        defs: &EffectDefs,
        def: &EffectDef,
        granted: &TagSet,
    ) -> Option<BlockReason> {
        if granted.is_empty() || def.application_requirements.is_empty() {
            return self.refusal_at(now, defs, def, &TagSet::new());
        }
        let mut owned = self.tags(defs, now).tags().clone();
        owned.extend_from(granted);
        self.refusal_given(&owned, defs, def, &TagSet::new())
    }

    /// [`refusal`](Self::refusal) with the owned tags given. The life
    /// rule reads the host's own: no effect granting a tag it reacts to
    /// ends lazily, so those counts are exact at any instant.
    #[inline]
    fn refusal_given(
        &self,
        owned: &TagSet,
        defs: &EffectDefs,
        def: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<BlockReason> {
        if !def.application_requirements.matches(owned) {
            return Some(BlockReason::Requirements);
        }
        if !def.affects_dead && self.is_dead(defs) {
            return Some(BlockReason::Dead);
        }
        if self.aside.no_listening() {
            return None;
        }
        self.immunity_against(defs, def, spec_tags)
            .map(|by| BlockReason::Immune { by })
    }

    /// An active, uninhibited effect whose immunity query matches the
    /// incoming effect's asset tags plus the spec's tags.
    #[inline(never)]
    fn immunity_against(
        &self,
        defs: &EffectDefs,
        incoming: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<EffectId> {
        let mut described: Option<TagSet> = None;
        for effect in self.listening_effects() {
            if effect.inhibited {
                continue;
            }
            let Some(immunity) = &defs.def(effect.def).immunity else {
                continue;
            };
            let tags = described.get_or_insert_with(|| {
                let mut tags = incoming.asset_tags.clone();
                tags.extend_from(spec_tags);
                tags
            });
            if immunity.matches(tags) {
                return Some(effect.def);
            }
        }
        None
    }
}
