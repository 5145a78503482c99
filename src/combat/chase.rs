//! Chase: the controller-agnostic re-issue state ([`ChaseState`]) and the
//! pawn-side surface abilities call ([`PawnCombatant`]).
//!
//! A chase walks to where the target *is* and re-issues the move as the
//! target drifts, rate-limited by two gates that must both pass: the target
//! moved more than `MoveRefreshThresholdCm` from the last issued destination,
//! and at least `1 / MaxMoveRefreshHz` passed since the last issue. There is
//! no give-up: the caller ends the chase. Ending a chase does not stop the
//! body; the caller pairs it with [`PawnCombatant::stop_movement`] when it
//! wants the body halted.

use std::sync::Arc;

use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

use super::combatant::Combatant;
use super::defs::{CombatDefs, CombatKind};
use super::movement::MoveIssuer;
use super::vec2::Vec2;
use crate::time::SimTime;

/// What a chase update decided.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ChaseAction {
    /// Keep going to the last destination.
    Idle,
    /// Issue a new move to this destination.
    ReissueMove(Vec2),
}

/// The re-issue state machine (the role of `FCradlChaseState`): no entity
/// access, no controller; AI can reuse it as is.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChaseState {
    /// The entity chased, while active.
    pub target: Option<Entity>,
    /// The destination of the last issued move.
    pub last_issued: Vec2,
    /// When the last move was issued.
    pub last_issue_time: SimTime,
}

impl ChaseState {
    /// True while chasing.
    pub fn is_active(&self) -> bool {
        self.target.is_some()
    }

    /// Starts chasing `target`, standing at `target_at`; returns the move to issue.
    pub fn begin(&mut self, target: Entity, target_at: Vec2, now: SimTime) -> Vec2 {
        self.target = Some(target);
        self.last_issued = target_at;
        self.last_issue_time = now;
        target_at
    }

    /// Decides whether to re-issue: only when the target drifted more than
    /// the threshold from the last issued destination *and* more than the
    /// minimum refresh interval has passed (the contract's two gates, both
    /// strict: a pursuer polling at a quarter of its refresh interval
    /// re-issues every fifth poll, not every fourth).
    pub fn update(&mut self, target_at: Vec2, now: SimTime, kind: &CombatKind) -> ChaseAction {
        let drifted = !self
            .last_issued
            .within(target_at, kind.move_refresh_threshold_cm);
        let rested = now.saturating_since(self.last_issue_time) > kind.min_move_refresh_interval;
        if self.is_active() && drifted && rested {
            self.last_issued = target_at;
            self.last_issue_time = now;
            ChaseAction::ReissueMove(target_at)
        } else {
            ChaseAction::Idle
        }
    }

    /// Stops chasing (the body keeps its last move).
    pub fn end(&mut self) -> bool {
        self.target.take().is_some()
    }
}

/// The pawn-side combat movement surface (the role of `IPawnCombatant`):
/// abilities call it, and it forwards to whichever [`MoveIssuer`] drives
/// the body. Each call reports what it issued so the caller can trace it.
pub trait PawnCombatant: Send + Sync {
    /// Starts a chase of `target`; returns the destination issued.
    fn begin_chase(
        &self,
        world: &mut World,
        entity: Entity,
        target: Entity,
        now: SimTime,
    ) -> Option<Vec2>;
    /// One poll of the chase; returns a re-issued destination, if any.
    fn update_chase(&self, world: &mut World, entity: Entity, now: SimTime) -> Option<Vec2>;
    /// Ends the chase (idempotent); returns `true` if one was active. Does
    /// not stop the body.
    fn end_chase(&self, world: &mut World, entity: Entity, now: SimTime) -> bool;
    /// True while chasing.
    fn is_chase_active(&self, world: &World, entity: Entity) -> bool;
    /// [`is_chase_active`](Self::is_chase_active) for a caller that holds
    /// the world exclusively (the walk-up's poll, every 100 ms per walker):
    /// no dynamic borrow to take and give back. The shared read by default.
    fn is_chase_active_exclusive(&self, world: &mut World, entity: Entity) -> bool {
        self.is_chase_active(world, entity)
    }
    /// Halts the body.
    fn stop_movement(&self, world: &mut World, entity: Entity, now: SimTime);
    /// Moves the body to `to` on the player's order (no chase involved).
    fn move_to(&self, world: &mut World, entity: Entity, to: Vec2, now: SimTime);
    /// Where `entity` is at `now`.
    fn position(&self, world: &World, entity: Entity, now: SimTime) -> Option<Vec2>;
    /// [`position`](Self::position) for a caller that holds the world
    /// exclusively (see [`MoveIssuer::position_exclusive`]). The shared
    /// read by default.
    fn position_exclusive(&self, world: &mut World, entity: Entity, now: SimTime) -> Option<Vec2> {
        self.position(world, entity, now)
    }
}

/// The shipped pawn: keeps the [`ChaseState`] on the [`Combatant`] and
/// tunables on its kind, and moves through a [`MoveIssuer`].
pub struct ChasingPawn {
    mover: Arc<dyn MoveIssuer>,
    defs: Arc<CombatDefs>,
}

impl ChasingPawn {
    /// A pawn moving bodies through `mover`, with kinds from `defs`.
    pub fn new(mover: Arc<dyn MoveIssuer>, defs: Arc<CombatDefs>) -> Self {
        Self { mover, defs }
    }
}

impl PawnCombatant for ChasingPawn {
    fn begin_chase(
        &self,
        world: &mut World,
        entity: Entity,
        target: Entity,
        now: SimTime,
    ) -> Option<Vec2> {
        let target_at = self.mover.position_exclusive(world, target, now)?;
        let to = world
            .query_one_mut::<&mut Combatant>(entity)
            .ok()?
            .chase
            .begin(target, target_at, now);
        self.mover.issue_move_to(world, entity, to, now);
        Some(to)
    }

    fn update_chase(&self, world: &mut World, entity: Entity, now: SimTime) -> Option<Vec2> {
        let (target, kind) = {
            // Exclusive access is at hand: no shared borrow to take and
            // give back.
            let combatant = world.query_one_mut::<&Combatant>(entity).ok()?;
            (combatant.chase.target?, combatant.kind)
        };
        let target_at = self.mover.position_exclusive(world, target, now)?;
        let kind = self.defs.kind(kind);
        let action = world
            .query_one_mut::<&mut Combatant>(entity)
            .ok()?
            .chase
            .update(target_at, now, kind);
        match action {
            ChaseAction::Idle => None,
            ChaseAction::ReissueMove(to) => {
                self.mover.issue_move_to(world, entity, to, now);
                Some(to)
            }
        }
    }

    fn end_chase(&self, world: &mut World, entity: Entity, _now: SimTime) -> bool {
        world
            .query_one_mut::<&mut Combatant>(entity)
            .is_ok_and(|c| c.chase.end())
    }

    fn is_chase_active(&self, world: &World, entity: Entity) -> bool {
        world
            .get::<&Combatant>(entity)
            .is_ok_and(|c| c.chase.is_active())
    }

    fn is_chase_active_exclusive(&self, world: &mut World, entity: Entity) -> bool {
        world
            .query_one_mut::<&Combatant>(entity)
            .is_ok_and(|c| c.chase.is_active())
    }

    fn stop_movement(&self, world: &mut World, entity: Entity, now: SimTime) {
        self.mover.stop_move(world, entity, now);
    }

    fn move_to(&self, world: &mut World, entity: Entity, to: Vec2, now: SimTime) {
        self.mover.issue_move_to(world, entity, to, now);
    }

    fn position(&self, world: &World, entity: Entity, now: SimTime) -> Option<Vec2> {
        self.mover.position(world, entity, now)
    }

    fn position_exclusive(&self, world: &mut World, entity: Entity, now: SimTime) -> Option<Vec2> {
        self.mover.position_exclusive(world, entity, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn kind() -> CombatKind {
        CombatKind {
            name: "Test".into(),
            move_refresh_threshold_cm: 50.0,
            min_move_refresh_interval: SimDuration::from_millis(250),
            chase_poll_interval: SimDuration::from_millis(100),
            max_attackers: 3,
            line_of_sight_tolerance: SimDuration::from_secs(1),
        }
    }

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn both_gates_must_pass_to_reissue() {
        let mut world = World::new();
        let target = world.spawn(());
        let mut chase = ChaseState::default();
        let kind = kind();
        assert_eq!(
            chase.update(Vec2::new(500.0, 0.0), t(0), &kind),
            ChaseAction::Idle,
            "not active"
        );
        chase.begin(target, Vec2::ZERO, t(0));
        // Drifted far, but too soon.
        assert_eq!(
            chase.update(Vec2::new(500.0, 0.0), t(100), &kind),
            ChaseAction::Idle
        );
        // Long enough, but barely drifted (a jittery target).
        assert_eq!(
            chase.update(Vec2::new(49.0, 0.0), t(1_000), &kind),
            ChaseAction::Idle
        );
        // Both: re-issue, and the gates restart from here.
        assert_eq!(
            chase.update(Vec2::new(51.0, 0.0), t(1_000), &kind),
            ChaseAction::ReissueMove(Vec2::new(51.0, 0.0))
        );
        assert_eq!(
            chase.update(Vec2::new(200.0, 0.0), t(1_200), &kind),
            ChaseAction::Idle
        );
        // The interval must be exceeded, not just reached.
        assert_eq!(
            chase.update(Vec2::new(200.0, 0.0), t(1_250), &kind),
            ChaseAction::Idle
        );
        assert_eq!(
            chase.update(Vec2::new(200.0, 0.0), t(1_251), &kind),
            ChaseAction::ReissueMove(Vec2::new(200.0, 0.0))
        );
        assert!(chase.end());
        assert!(!chase.end(), "ending is idempotent");
    }

    /// The shipped pawn's exclusive reads are its shared ones: the chase
    /// and the positions, before, during and after a chase, and for an
    /// entity that is gone.
    #[test]
    fn the_pawns_exclusive_reads_agree_with_its_shared_ones() {
        use crate::combat::movement::{Kinematic, KinematicMover};
        let catalog = crate::combat::default_catalog_builder().build().unwrap();
        let defs = catalog.section_arc::<CombatDefs>().unwrap();
        let pawn = ChasingPawn::new(Arc::new(KinematicMover), defs.clone());
        let mut world = World::new();
        let combatant = || crate::combat::new_combatant(&defs, defs.default_kind());
        let chaser = world.spawn((combatant(), Kinematic::at(Vec2::ZERO, 200.0)));
        let target = world.spawn((combatant(), Kinematic::at(Vec2::new(900.0, 0.0), 0.0)));
        let gone = world.spawn((combatant(),));
        world.despawn(gone).unwrap();
        let t = |ms: u64| SimTime::from_micros(ms * 1_000);
        let agree = |world: &mut World, now: SimTime| {
            for entity in [chaser, target, gone] {
                let active = pawn.is_chase_active(world, entity);
                assert_eq!(pawn.is_chase_active_exclusive(world, entity), active);
                let at = pawn.position(world, entity, now);
                assert_eq!(pawn.position_exclusive(world, entity, now), at);
            }
            pawn.is_chase_active(world, chaser)
        };
        assert!(!agree(&mut world, t(0)));
        assert!(pawn.begin_chase(&mut world, chaser, target, t(0)).is_some());
        assert!(agree(&mut world, t(1_500)));
        assert!(pawn.end_chase(&mut world, chaser, t(2_000)));
        assert!(!agree(&mut world, t(2_500)));
    }
}
