//! The steady state of a crowd fight allocates nothing: after warm-up, a
//! step of a 1 000-combatant arena (tracing off) makes no heap allocation.
//!
//! This binary installs a counting global allocator, so it holds this one
//! test: other tests running on parallel threads would count too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use gaskit::arena::{Arena, ArenaConfig};
use gaskit::prelude::*;

/// Counts every allocation and reallocation, then defers to the system.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counter has no effect on the memory returned.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

#[test]
fn a_warmed_up_crowd_fight_allocates_nothing_per_step() {
    // The counter is live: a zero below means nothing was allocated.
    let probe = allocations();
    std::hint::black_box(Vec::<u64>::with_capacity(8));
    assert!(allocations() > probe, "the counting allocator is installed");

    let mut arena = Arena::new(ArenaConfig {
        combatants: 1_000,
        ..ArenaConfig::default()
    })
    .expect("the shipped catalog builds the arena");
    let frame = SimDuration::from_millis(50);
    // Warm-up: engagement, chase, first swings; pools and queues reach
    // their working size.
    arena.run_for(SimDuration::from_secs(30), frame);

    let attacks_before = arena.attacks_resolved();
    let before = allocations();
    let mut steps_allocating = 0;
    for _ in 0..400 {
        let at_step = allocations();
        arena.run_for(frame, frame);
        if allocations() != at_step {
            steps_allocating += 1;
        }
    }
    let allocated = allocations() - before;
    let attacks = arena.attacks_resolved() - attacks_before;

    // The window must be real combat, or "nothing allocated" proves nothing.
    assert!(attacks > 5_000, "only {attacks} attacks in 20 s");
    assert_eq!(arena.engaged(), 1_000, "every fighter is still engaged");
    assert_eq!(
        allocated, 0,
        "{allocated} allocations in {steps_allocating} of 400 steps ({attacks} attacks)"
    );
}
