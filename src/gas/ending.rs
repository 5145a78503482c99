//! Ending ability instances (one, or those a tag query cancels), and
//! despawning an entity with everything the context keeps for it.

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::Gas;
use crate::abilities::{AbilitySystem, EndReason, InstanceKey};
use crate::effects::TagLog;
use crate::tags::TagSet;
use crate::trace::TraceKind;

impl Gas {
    /// Ends an active instance: its wait is dropped, its owned and block
    /// tags released, then its behaviour's teardown runs; then, as at the
    /// end of every context call, what reacts to that runs (an ongoing
    /// requirement on a released tag, an instance waiting for it,
    /// observers). Returns `false` (and does nothing) if the instance
    /// already ended, so teardown runs exactly once whatever the path.
    pub fn end_ability(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        reason: EndReason,
    ) -> bool {
        let ended = self.end_instance(world, owner, instance, reason);
        self.reconcile(world);
        ended
    }

    /// [`end_ability`](Self::end_ability) without the reconcile: for the
    /// context's own paths, whose caller reconciles once at its end.
    pub(crate) fn end_instance(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        reason: EndReason,
    ) -> bool {
        let ended = {
            let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) else {
                return false;
            };
            let Some(ended) = system.abilities.instances.remove(instance) else {
                return false;
            };
            self.catch_up(owner, system);
            if let Some(timer) = ended.wait_timer {
                self.timers.cancel(timer);
            }
            let def = self.catalog.abilities().def(ended.ability());
            // Both were granted when the instance started.
            let mut log = TagLog {
                trace: &mut self.trace,
                now: self.now,
                entity: owner,
            };
            let _ = system
                .host
                .release_tags(&def.activation_owned_tags, &mut log);
            let _ = system
                .abilities
                .loose
                .remove_blocks(&def.block_abilities_with_tags);
            self.note_touched(owner, system);
            ended
        };
        if let Some(target) = ended.activation.target().filter(|&t| t != owner) {
            if let Ok(target_system) = world.query_one_mut::<&mut AbilitySystem>(target) {
                target_system
                    .abilities
                    .targeted_by
                    .retain(|&mut (o, k)| (o, k) != (owner, instance));
            }
        }
        self.trace.record(
            self.now,
            TraceKind::AbilityEnded {
                owner,
                ability: ended.ability(),
                reason,
            },
        );
        let what = (ended.ability(), ended.activation.event(), ended.level());
        self.run_behaviour_with(world, owner, instance, what, ended.state, |b, cx| {
            b.end(cx, reason)
        });
        true
    }

    /// Cancels the owner's active abilities whose ability tags match any of
    /// `with` and none of `without`; returns how many ended.
    pub fn cancel_abilities(
        &mut self,
        world: &mut World,
        owner: Entity,
        with: &TagSet,
        without: &TagSet,
    ) -> usize {
        let doomed: SmallVec<[InstanceKey; 2]> = {
            let Ok(system) = world.get::<&AbilitySystem>(owner) else {
                return 0;
            };
            let abilities = self.catalog.abilities();
            system
                .abilities
                .instances
                .iter()
                .filter(|(_, i)| {
                    let tags = &abilities.def(i.ability()).ability_tags;
                    tags.has_any(with) && !tags.has_any(without)
                })
                .map(|(k, _)| k)
                .collect()
        };
        let restores = self.restores;
        let mut ended = 0;
        for key in doomed {
            ended += usize::from(self.end_instance(world, owner, key, EndReason::Cancelled));
            // An observer told of a teardown restored a snapshot: the
            // cancel belonged to the abandoned timeline.
            if self.restores != restores {
                return ended;
            }
        }
        self.reconcile(world);
        ended
    }

    /// Despawns `entity` after ending its instances (`OwnerDespawned`) and
    /// the instances of others that target it (`TargetLost`), so every
    /// teardown runs, playing its started effects' remove cues (what their
    /// add cues started stops) and cancelling its effects' timers. With a rollback
    /// window its handle is kept ([`Reserved`](crate::Reserved)) until the
    /// window has passed. While the teardowns run the entity is leaving:
    /// an ability they activate on it, or aimed at it, is refused
    /// ([`ActivationFailure::TargetRequirements`](crate::ActivationFailure::TargetRequirements)),
    /// since it would outlive it. Returns `false` if the entity did not
    /// exist (or is only a handle kept for a rollback, despawned before),
    /// or if an observer told of a teardown restored a snapshot: the
    /// despawn belonged to the timeline it abandoned, and stops there.
    pub fn despawn(&mut self, world: &mut World, entity: Entity) -> bool {
        // A handle kept for a rollback is an entity already gone: despawned
        // again it would be kept a window longer, and counted twice.
        if !self.in_play(world, entity) {
            return false;
        }
        let restores = self.restores;
        self.departing.push(entity);
        let (own, targeting) = match world.get::<&AbilitySystem>(entity) {
            Ok(system) => (
                system
                    .abilities
                    .instances
                    .keys()
                    .collect::<SmallVec<[InstanceKey; 2]>>(),
                system.abilities.targeted_by.clone(),
            ),
            Err(_) => (SmallVec::new(), SmallVec::new()),
        };
        let ends = own
            .into_iter()
            .map(|instance| (entity, instance, EndReason::OwnerDespawned))
            .chain(
                targeting
                    .into_iter()
                    .map(|(other, instance)| (other, instance, EndReason::TargetLost)),
            );
        for (owner, instance, reason) in ends {
            self.end_instance(world, owner, instance, reason);
            if self.restores != restores {
                self.departing.pop();
                return false;
            }
        }
        // Its effects end with it: what their cues started is told to
        // stop, and no expiry or period may fire afterwards.
        let _ = self.with_host(world, entity, |host, cx| host.cue_departure(cx));
        if let Ok(system) = world.query_one_mut::<&AbilitySystem>(entity) {
            for timer in system.host.timers() {
                self.timers.cancel(timer);
            }
        }
        self.live_holders.retain(|&holder| holder != entity);
        let despawned = self.retire(world, entity);
        self.departing.pop();
        self.reconcile(world);
        despawned
    }
}
