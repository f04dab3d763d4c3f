// The Hopper GEMM's persistent schedule: which output tiles, and which of their k-blocks, each
// cluster of the persistent grid computes, and which cluster writes each tile. One definition for
// the kernel (device/hopper_gemm.cu; the tuner's compiler prepends this text to the kernel source,
// as it does gemm_rules.hpp) and the host (its tests). Plain C++17, no headers, classic include
// guard. Nothing here throws; any code may call it.
//
// Tiles are cluster tiles (cluster_m * tile_m rows by cluster_n * tile_n columns), numbered in the
// grouped raster order that keeps concurrent tiles' rows of A and columns of B in L2. With C
// clusters, three decompositions:
// - data-parallel: cluster c computes tiles c, c + C, c + 2C, ... whole;
// - split-K (split_k > 1): units (slice, tile), dealt out like tiles, each a slice of the k-blocks;
//   a second kernel sums the slices;
// - stream-K: when the last wave of tiles is partial and follows a full one, it and the full wave
//   before it are the stream-K tiles, taken first. Their k-blocks, laid end to end, are cut into
//   C even ranges, one per cluster, so that every SM works to the end. A range starts inside a
//   tile (its first item CONTRIBUTES: an fp32 partial to the workspace, then a flag), covers
//   whole tiles, and ends inside a tile: the cluster that computes a tile's first k-block OWNS
//   it, adds the partial of the cluster after it, and writes it. A range is at least a tile long
//   (more than C tiles' k-blocks over C clusters), so each owned tile has exactly one
//   contributor, owner + 1. A contribution is a cluster's first item and never waits, so an owner
//   waits only on work that started before anything could block it. The other tiles follow,
//   data-parallel. With less than one wave there is nothing to balance that split-K would not
//   (the partial_wave seeds), and the plan stays data-parallel.
#ifndef CUTUNE_GEMM_SCHEDULE_HPP
#define CUTUNE_GEMM_SCHEDULE_HPP

#if defined(__CUDACC__)
#define CUTUNE_SCHEDULE_FN __host__ __device__ __forceinline__
#else
#define CUTUNE_SCHEDULE_FN inline
#endif

namespace cutune::gemm::schedule {

// What a work item's result is for.
enum Role : int {
  kWhole = 0,       // every k-block of the tile: the epilogue writes D
  kSlice = 1,       // a split-K slice: its fp32 plane of the workspace
  kContribute = 2,  // stream-K, a tile's k-blocks after the first: a partial for the owner
  kOwn = 3,         // stream-K, a tile's first k-blocks: add owner + 1's partial, write D
};

struct WorkItem {
  int tile;    // index in raster order
  int tile_m;  // cluster-tile row
  int tile_n;  // cluster-tile column
  int k_block_begin;
  int k_blocks;
  int split;  // split-K slice; 0 otherwise
  int role;
};

CUTUNE_SCHEDULE_FN long long min_of(long long a, long long b) { return a < b ? a : b; }

struct Plan {
  int tiles_m, tiles_n, tiles, k_blocks, split_k, swizzle, clusters;
  bool along_m;
  int k_blocks_per_split;
  int stream_k_tiles;                 // tiles [0, stream_k_tiles) are cut into k-ranges
  long long share_base, share_extra;  // a range: share_base k-blocks, +1 for the first share_extra

  // cluster_tile_m = cluster_m * tile_m, cluster_tile_n = cluster_n * tile_n.
  CUTUNE_SCHEDULE_FN Plan(int m, int n, int k, int cluster_tile_m, int cluster_tile_n, int tile_k,
                          int split_k_, bool stream_k, int swizzle_, bool along_m_, int clusters_)
      : tiles_m((m + cluster_tile_m - 1) / cluster_tile_m),
        tiles_n((n + cluster_tile_n - 1) / cluster_tile_n),
        tiles(tiles_m * tiles_n),
        k_blocks((k + tile_k - 1) / tile_k),
        split_k(split_k_),
        swizzle(swizzle_),
        clusters(clusters_),
        along_m(along_m_),
        k_blocks_per_split((k_blocks + split_k_ - 1) / split_k_),
        stream_k_tiles(0),
        share_base(0),
        share_extra(0) {
    const int partial_wave = tiles % clusters;
    if (stream_k && split_k == 1 && partial_wave != 0 && tiles > clusters) {
      stream_k_tiles = partial_wave + clusters;
      const long long total = static_cast<long long>(stream_k_tiles) * k_blocks;
      share_base = total / clusters;
      share_extra = total % clusters;
    }
  }

  // First k-block (counted over the stream-K tiles end to end) of `cluster`'s range; the range
  // ends where cluster + 1's begins.
  CUTUNE_SCHEDULE_FN long long range_begin(int cluster) const {
    return cluster * share_base + min_of(cluster, share_extra);
  }

  CUTUNE_SCHEDULE_FN int stream_k_items(int cluster) const {
    const long long begin = range_begin(cluster), end = range_begin(cluster + 1);
    return begin < end ? static_cast<int>((end - 1) / k_blocks - begin / k_blocks + 1) : 0;
  }

  // Work items of `cluster`, in the order it computes them.
  CUTUNE_SCHEDULE_FN int items(int cluster) const {
    const int units = split_k > 1 ? tiles * split_k : tiles - stream_k_tiles;
    const int dealt = cluster < units ? (units - 1 - cluster) / clusters + 1 : 0;
    return stream_k_items(cluster) + dealt;
  }

  CUTUNE_SCHEDULE_FN WorkItem item(int cluster, int index) const {
    WorkItem work{0, 0, 0, 0, k_blocks, 0, kWhole};
    const int ranged = stream_k_items(cluster);
    if (split_k > 1) {
      const int unit = cluster + index * clusters;
      work.tile = unit % tiles;
      work.split = unit / tiles;
      work.k_block_begin = work.split * k_blocks_per_split;
      const long long left = k_blocks - work.k_block_begin;
      work.k_blocks = static_cast<int>(left < 0 ? 0 : min_of(left, k_blocks_per_split));
      work.role = kSlice;
    } else if (index < ranged) {
      const long long begin = range_begin(cluster);
      const long long position = index == 0 ? begin : (begin / k_blocks + index) * k_blocks;
      const long long tile_end = (position / k_blocks + 1) * k_blocks;
      work.tile = static_cast<int>(position / k_blocks);
      work.k_block_begin = static_cast<int>(position % k_blocks);
      work.k_blocks = static_cast<int>(min_of(tile_end, range_begin(cluster + 1)) - position);
      work.role = work.k_block_begin > 0 ? kContribute : work.k_blocks == k_blocks ? kWhole : kOwn;
    } else {
      work.tile = stream_k_tiles + cluster + (index - ranged) * clusters;
    }
    place(work);
    return work;
  }

  // Grouped raster: groups of `swizzle` tiles "across" the raster direction; inside a group,
  // consecutive tiles cycle across it while advancing "along" it, so that concurrent tiles reuse
  // the same rows of A and columns of B from L2. swizzle = 1 walks plain rows (or columns).
  CUTUNE_SCHEDULE_FN void place(WorkItem& work) const {
    const int along_tiles = along_m ? tiles_m : tiles_n;
    const int across_tiles = along_m ? tiles_n : tiles_m;
    const int group = work.tile / (swizzle * along_tiles);
    const int first_across = group * swizzle;
    const int group_across =
        static_cast<int>(min_of(across_tiles - first_across, static_cast<long long>(swizzle)));
    const int in_group = work.tile % (swizzle * along_tiles);
    const int across = first_across + in_group % group_across;
    const int along = in_group / group_across;
    work.tile_m = along_m ? along : across;
    work.tile_n = along_m ? across : along;
  }
};

}  // namespace cutune::gemm::schedule

#endif  // CUTUNE_GEMM_SCHEDULE_HPP
