// Readers of the spec's sections that load.cpp hands the document to once the sections they
// refer to are read. Internal to cutune_spec.
#pragma once

#include "cutune/space.hpp"
#include "expression.hpp"
#include "reader.hpp"

namespace cutune::spec {

// `knobs`, into `space`: each a fragment of its kind, named as a C identifier; the names knobs
// derive must not clash with each other or the problem's arguments (problem_scope).
void read_knobs(const Reader& r, const Node& root, const Scope& problem_scope, Space& space);

// `constraints`, after the knobs: expressions over knobs, problem and device (knob_scope), each
// with an optional repair that steps one knob up, down or to the nearest value that holds.
void read_constraints(const Reader& r, const Node& root, const Scope& knob_scope, Space& space);

// `paired_moves`: groups of knobs a search also moves two at a time (Space::pair_moves).
void read_paired_moves(const Reader& r, const Node& root, Space& space);

// `buffers`, after the problem: each with its type, its size over the problem's arguments
// (problem_scope) and its role.
void read_buffers(const Reader& r, const Node& root, const Scope& problem_scope, KernelSpec& spec);

// A partial config (a seed's, a reference config) of knob: value, legal in `space`.
PartialConfig read_partial_config(const Reader& r, const Node& node, const Space& space);

// `check`, after the knobs and buffers: a reference kernel or a reference config; without one,
// the default config when a buffer is compared (an output or an inout).
void read_check(const Reader& r, const Node& root, const Scope& knob_scope, KernelSpec& spec);

// `arguments` (the kernel's parameters in its own order and types) and `constants` (CUDA
// __constant__ symbols), after `buffers` and `scalars`: an argument or a constant names a buffer.
void read_arguments(const Reader& r, const Node& root, const Scope& problem_scope,
                    KernelSpec& spec);

// `launch` (and a reference's `check.launch`): grid (explicit expressions, or Kernel Tuner's
// problem_size and grid_div), block, cluster and shared memory.
LaunchSpec read_launch(const Reader& r, const Node& node, const Scope& scope);

// CUDA's limits on a thread block, which every device since compute capability 2.0 shares: at
// most 1024 threads, x and y sides of at most 1024, a z side of at most 64. A config past them
// cannot launch on any card, so a space whose block uses knobs never draws one (Kernel Tuner, too,
// skips configs whose block exceeds the device's maximum).
Constraint thread_block_limit(const LaunchSpec& launch);

}  // namespace cutune::spec
