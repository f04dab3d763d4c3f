// The Hopper GEMM's persistent schedule: which output tiles, and which of their k-blocks, each
// cluster of the persistent grid computes. One definition for the kernel (device/hopper_gemm.cu;
// the tuner's compiler prepends this text to the kernel source, as it does gemm_rules.hpp) and the
// host (its tests). Plain C++17, no headers, classic include guard. Nothing here throws; any code
// may call it.
//
// Tiles are cluster tiles (cluster_m * tile_m rows by cluster_n * tile_n columns), numbered in the
// grouped raster order that keeps concurrent tiles' rows of A and columns of B in L2. With C
// clusters, two decompositions:
// - data-parallel: cluster c computes tiles c, c + C, c + 2C, ... whole;
// - split-K (split_k > 1): units (slice, tile), dealt out like tiles, each a slice of the k-blocks;
//   a second kernel sums the slices.
// (A third, even k-ranges per cluster across tile boundaries, lost on the H200 and was deleted:
// docs/perf.md, issue 11.)
#ifndef CUTUNE_GEMM_SCHEDULE_HPP
#define CUTUNE_GEMM_SCHEDULE_HPP

#if defined(__CUDACC__)
#define CUTUNE_SCHEDULE_FN __host__ __device__ __forceinline__
#else
#define CUTUNE_SCHEDULE_FN inline
#endif

namespace cutune::gemm::schedule {

struct WorkItem {
  int tile;    // index in raster order
  int tile_m;  // cluster-tile row
  int tile_n;  // cluster-tile column
  int k_block_begin;
  int k_blocks;
  int split;  // split-K slice (its fp32 plane of the workspace); 0 for a whole tile
};

CUTUNE_SCHEDULE_FN int min_of(int a, int b) { return a < b ? a : b; }

struct Plan {
  int tiles_m, tiles_n, tiles, k_blocks, split_k, swizzle, clusters;
  bool along_m;
  int k_blocks_per_split;

  // cluster_tile_m = cluster_m * tile_m, cluster_tile_n = cluster_n * tile_n.
  CUTUNE_SCHEDULE_FN Plan(int m, int n, int k, int cluster_tile_m, int cluster_tile_n, int tile_k,
                          int split_k_, int swizzle_, bool along_m_, int clusters_)
      : tiles_m((m + cluster_tile_m - 1) / cluster_tile_m),
        tiles_n((n + cluster_tile_n - 1) / cluster_tile_n),
        tiles(tiles_m * tiles_n),
        k_blocks((k + tile_k - 1) / tile_k),
        split_k(split_k_),
        swizzle(swizzle_),
        clusters(clusters_),
        along_m(along_m_),
        k_blocks_per_split((k_blocks + split_k_ - 1) / split_k_) {}

  // Work items of `cluster`, in the order it computes them.
  CUTUNE_SCHEDULE_FN int items(int cluster) const {
    const int units = tiles * split_k;
    return cluster < units ? (units - 1 - cluster) / clusters + 1 : 0;
  }

  CUTUNE_SCHEDULE_FN WorkItem item(int cluster, int index) const {
    WorkItem work{0, 0, 0, 0, k_blocks, 0};
    const int unit = cluster + index * clusters;
    work.tile = unit % tiles;
    if (split_k > 1) {
      work.split = unit / tiles;
      work.k_block_begin = work.split * k_blocks_per_split;
      const int left = k_blocks - work.k_block_begin;
      work.k_blocks = left < 0 ? 0 : min_of(left, k_blocks_per_split);
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
    const int group_across = min_of(across_tiles - first_across, swizzle);
    const int in_group = work.tile % (swizzle * along_tiles);
    const int across = first_across + in_group % group_across;
    const int along = in_group / group_across;
    work.tile_m = along_m ? along : across;
    work.tile_n = along_m ? across : along;
  }
};

}  // namespace cutune::gemm::schedule

#endif  // CUTUNE_GEMM_SCHEDULE_HPP
