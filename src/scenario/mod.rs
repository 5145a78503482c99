//! Scripted fights: a RON file of fighters and timed inputs, run
//! deterministically at any frame step. The snapshot tests, the duel and
//! the determinism checks all run scenarios.
//!
//! ```ron
//! (
//!     seed: 7,
//!     duration: 30.0,
//!     step: 0.05,
//!     combatants: [
//!         (name: "alice", level: 40, equipment: [("Bronze Scimitar", 1)], position: (0, 0), speed: 200),
//!         (name: "bob", level: 30, position: (600, 0), speed: 150, style: "Combat.Style.Defensive"),
//!     ],
//!     timeline: [
//!         (at: 0.0, do: Engage("alice", "bob")),
//!         (at: 3.0, do: Cast("alice", "bob", "Wind Strike")),
//!         (at: 9.0, do: Disengage("alice")),
//!     ],
//! )
//! ```

mod compile;
mod data;
mod fit;
mod run;

pub use compile::{Action, CombatantSpec, Scenario};
pub use data::{ActionData, CombatantData, InputData, ScenarioData};
pub use fit::ScenarioError;
pub use run::{ScenarioRun, ScenarioSnapshot, SCENARIO_ABILITIES};
