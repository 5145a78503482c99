//! Reconciling: after every step, bring each touched entity's derived state
//! in line with its sources (inhibition by ongoing requirements, live
//! attribute captures). One place, run on every path.

use hecs::{Entity, World};

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::effects::Applied;

impl Gas {
    /// Queues `entity` for reconciling when a change of its tags or state
    /// is one something reacts to or waits on, and notes attribute
    /// movement for live captures.
    // Inlined, like `reconcile_only`: most changes (a cooldown begun on
    // the short path, a combat mark refreshed) leave nothing to note.
    #[inline]
    pub(crate) fn note_touched(&mut self, entity: Entity, system: &mut AbilitySystem) {
        let host = &system.host;
        if !host.attributes_changed && !host.effect_ended && host.notes.is_empty() {
            return;
        }
        self.note_changes(entity, system);
    }

    /// [`note_touched`](Self::note_touched) with something to note.
    #[inline(never)]
    fn note_changes(&mut self, entity: Entity, system: &mut AbilitySystem) {
        let host = &mut system.host;
        let state_moved = host.attributes_changed || host.effect_ended;
        host.effect_ended = false;
        if host.attributes_changed {
            host.attributes_changed = false;
            self.attributes_moved = true;
            if !self.live_holders.is_empty() {
                self.moved.push(entity);
            }
        }
        if state_moved && system.waits_on_state() {
            self.queue_reconcile(entity, system);
        }
        let host = &system.host;
        if host.notes.is_empty() {
            return;
        }
        let reactive = self.catalog.effects().reactive_tags();
        let reacts = host.notes.meets(reactive) || system.waits_on_tags();
        if reacts {
            self.queue_reconcile(entity, system);
        } else if !system.queued() {
            // Nothing reacts to these tags: forget them now.
            system.host.notes.clear();
        }
    }

    /// Queues `entity` for the next reconcile (once).
    pub(crate) fn queue_reconcile(&mut self, entity: Entity, system: &mut AbilitySystem) {
        if !system.queued() {
            system.set_queued(true);
            self.dirty.push_back(entity);
        }
    }

    /// The end of every context call: reconcile, then deliver what
    /// happened to the observers (whose actions are reconciled in turn).
    pub(crate) fn reconcile(&mut self, world: &mut World) {
        self.reconcile_only(world);
        self.deliver(world);
    }

    /// Runs the reactions of every queued entity and the follow-up work
    /// effects left, in queue order, until nothing is left; then refreshes
    /// live captures if attributes moved.
    // Inlined: it ends every context call (three per attack in a fight),
    // and nearly always finds nothing queued; called out of line, its
    // register saves cost more than that test (1.2 % of an attack's
    // instructions at 1 000 fighters).
    #[inline]
    pub(crate) fn reconcile_only(&mut self, world: &mut World) {
        if self.dirty.is_empty() && self.follow_ups.is_empty() {
            // The common case: nothing reacts, only live captures may move.
            self.refresh_live_if_moved(world);
            return;
        }
        self.reconcile_queued(world);
    }

    /// [`reconcile_only`](Self::reconcile_only) with something queued.
    #[inline(never)]
    fn reconcile_queued(&mut self, world: &mut World) {
        self.reconcile_depth += 1;
        loop {
            while let Some(entity) = self.dirty.pop_front() {
                if self.reaction_budget == 0 {
                    self.drop_unsettled(world, entity);
                    continue;
                }
                self.reaction_budget -= 1;
                let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) else {
                    continue;
                };
                system.set_queued(false);
                let (appeared, vanished) = system.host.notes.take();
                self.with_host(world, entity, |host, cx| {
                    host.reconcile_inhibition(cx);
                    host.reconcile_life(cx);
                });
                self.ability_tag_reactions(world, entity, &appeared, &vanished);
                self.ability_state_waits(world, entity);
            }
            if self.follow_ups.is_empty() {
                break;
            }
            self.run_follow_ups(world);
        }
        self.reconcile_depth -= 1;
        if self.reconcile_depth == 0 {
            self.follow_up_budget = super::follow_ups::FOLLOW_UP_LIMIT;
            self.reaction_budget = REACTION_LIMIT;
        }
        self.refresh_live_if_moved(world);
    }

    /// Past the reaction budget: `entity`'s reactions are not run (its
    /// noted tag changes are forgotten, an instance whose wait was met
    /// stays waiting until the entity is next reconciled), and the
    /// trace says so. Every entity reconciled after the budget ran out in
    /// the same operation is dropped so, the one that spent it or not:
    /// the operation is already off the rails of settling content. Content that reacts to its own reactions (an
    /// effect whose ongoing requirements its tags upset, a behaviour
    /// re-arming a wait already met from its own wake) ends here, not in
    /// a call that never returns.
    #[cold]
    fn drop_unsettled(&mut self, world: &mut World, entity: Entity) {
        if let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) {
            system.set_queued(false);
            system.host.notes.clear();
        }
        self.record(crate::trace::TraceKind::ReactionLimit {
            entity,
            limit: REACTION_LIMIT,
        });
    }

    /// Re-reads live captures if some attribute moved since the last time,
    /// pass after pass while a pass moves another: one live effect's
    /// modifier may move the attribute another's capture reads, and each
    /// pass settles one more link of such a chain. A cycle of live
    /// captures across effects (X read into Y, Y into X) never settles;
    /// [`LIVE_REFRESH_PASSES`] bounds it. (A capture feeding its own
    /// attribute directly is refused at load.)
    #[inline]
    fn refresh_live_if_moved(&mut self, world: &mut World) {
        if self.attributes_moved {
            self.refresh_moved(world);
        }
    }

    /// [`refresh_live_if_moved`](Self::refresh_live_if_moved) with
    /// something moved.
    #[inline(never)]
    fn refresh_moved(&mut self, world: &mut World) {
        let mut passes = 0;
        while self.attributes_moved && !self.live_holders.is_empty() && passes < LIVE_REFRESH_PASSES
        {
            self.attributes_moved = false;
            self.refresh_live(world);
            passes += 1;
        }
        // Still moving after the last pass: a chain longer than the passes,
        // or a cycle, which settles only in the limit. What is left waits
        // for the next move, and the trace says so.
        if self.attributes_moved && !self.live_holders.is_empty() {
            if let Some(&entity) = self.moved.first() {
                self.record(crate::trace::TraceKind::ReactionLimit {
                    entity,
                    limit: LIVE_REFRESH_PASSES as u32,
                });
            }
        }
        self.attributes_moved = false;
        self.moved.clear();
    }

    /// Puts the buffer of moved entities back with what was moved since
    /// it was taken, so noting moves allocates nothing once warmed up.
    fn give_back_moved(&mut self, mut buffer: Vec<Entity>) {
        buffer.clear();
        buffer.extend_from_slice(&self.moved);
        self.moved = buffer;
    }

    /// `holder` was applied an effect that reads attributes live: once it
    /// holds one (`applied` added it), it is re-read when they move, its
    /// own or its source's.
    #[cold]
    #[inline(never)]
    pub(super) fn note_live_holder(&mut self, world: &World, holder: Entity, applied: &Applied) {
        // A stack takes its newest spec, and with it perhaps a new source.
        let (Applied::Added(key) | Applied::Stacked { key, .. }) = *applied else {
            return;
        };
        // Kept sorted: the order the holders are refreshed in is then the
        // same in a run and in its restore, whatever order they came in.
        if let Err(at) = self.live_holders.binary_search(&holder) {
            self.live_holders.insert(at, holder);
        }
        if let Some(readers) = &mut self.live_readers {
            let source = world
                .get::<&AbilitySystem>(holder)
                .ok()
                .and_then(|system| system.host.effects.get(key).and_then(|e| e.source));
            for entity in std::iter::once(holder).chain(source) {
                if let Err(at) = readers.binary_search(&entity) {
                    readers.insert(at, entity);
                }
            }
        }
    }

    /// Does `system` still hold an effect that reads attributes live (one
    /// not ended)? A holder that does not drops off the list.
    pub(super) fn holds_live_capture(&self, system: &AbilitySystem) -> bool {
        system
            .host
            .effects(self.now)
            .any(|(_, id)| self.catalog.effects().def(id).has_live_capture)
    }

    /// Re-reads the live captures of every holder that reads an entity
    /// whose attributes moved (itself, or a live source). Entities that no
    /// longer hold live effects drop off the list.
    #[cold]
    #[inline(never)]
    fn refresh_live(&mut self, world: &mut World) {
        // What moved since the last pass. Nothing noted (moves from before
        // any holder existed, a restored flag) re-reads them all.
        let mut moved = std::mem::take(&mut self.moved);
        moved.sort_unstable();
        moved.dedup();
        // Nothing any live capture reads moved (a hit on a bystander): no
        // holder to visit at all.
        if let Some(readers) = &self.live_readers {
            if !moved.is_empty() && !moved.iter().any(|m| readers.binary_search(m).is_ok()) {
                self.give_back_moved(moved);
                return;
            }
        }
        let reads_moved = |entity: Entity| moved.is_empty() || moved.binary_search(&entity).is_ok();
        // The readers rebuilt in the list they were kept in. The holders
        // are walked where they lie and compacted as they go: the list
        // stays non-empty while the refresh runs, so what the refresh
        // moves is noted (`moved`) for the next pass.
        let mut readers = self.live_readers.take().unwrap_or_default();
        readers.clear();
        let mut kept = 0;
        let walked = self.live_holders.len();
        for at in 0..walked {
            let holder = self.live_holders[at];
            let sources: Vec<(Entity, Vec<f64>)> = {
                let Ok(system) = world.get::<&AbilitySystem>(holder) else {
                    continue;
                };
                if !self.holds_live_capture(&system) {
                    continue;
                }
                let live_sources = system
                    .host
                    .live_sources(self.catalog.effects(), self.catalog.calculations());
                readers.push(holder);
                readers.extend_from_slice(&live_sources);
                if !reads_moved(holder) && !live_sources.iter().any(|&s| reads_moved(s)) {
                    self.live_holders[kept] = holder;
                    kept += 1;
                    continue;
                }
                live_sources
                    .into_iter()
                    .filter_map(|s| {
                        let other = world.get::<&AbilitySystem>(s).ok()?;
                        Some((s, other.attributes().current_values()))
                    })
                    .collect()
            };
            self.live_holders[kept] = holder;
            kept += 1;
            self.with_host(world, holder, |host, cx| {
                host.refresh_live(cx, |source, attribute| {
                    sources
                        .iter()
                        .find(|(s, _)| *s == source)
                        .map(|(_, values)| values[attribute.index()])
                })
            });
        }
        // Those dropped go. (A refresh applies nothing, so none came
        // while the list was walked.)
        debug_assert_eq!(self.live_holders.len(), walked, "a holder came mid-refresh");
        self.live_holders.drain(kept..walked);
        readers.sort_unstable();
        readers.dedup();
        self.live_readers = Some(readers);
        self.give_back_moved(moved);
        // The refresh itself may have queued reactions.
        if !self.dirty.is_empty() {
            self.reconcile_only(world);
        }
    }
}

/// The most passes of live-capture refreshes one reconcile runs: enough
/// for a chain of eight live effects each reading what the one before it
/// moves, and the end of a cycle's drift.
const LIVE_REFRESH_PASSES: usize = 8;

/// Most entity reconciles one operation runs (with every reaction it
/// causes): far above what settling content needs (an entity is
/// reconciled once per change something reacts to), and reached in a
/// fraction of a second by content that never settles.
pub(super) const REACTION_LIMIT: u32 = 1 << 16;
