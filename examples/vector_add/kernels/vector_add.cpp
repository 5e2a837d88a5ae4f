// z = x + y for float32, written the way Ascend C operators are written: a
// kernel class with Init / Process / CopyIn / Compute / CopyOut, the data split
// across blocks (one per AI core), double-buffered queues (BUFFER_NUM = 2) so
// that on hardware copy-in of tile i+1 overlaps the compute of tile i, and a
// tail that is neither a whole tile nor a multiple of 32 bytes.
#include "kernel_operator.h"
#include "kernels/vector_add_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t kElemsPerBlock32B = 32 / sizeof(float);

class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}

  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const VectorAddTiling& tiling) {
    const uint64_t start = tiling.blockLength * GetBlockIdx();
    // The last block takes whatever is left (may be shorter, or longer by < 8).
    blockLength_ = GetBlockIdx() + 1 == GetBlockNum() ? tiling.totalLength - start : tiling.blockLength;
    tileLength_ = tiling.tileLength;
    tileNum_ = static_cast<uint32_t>((blockLength_ + tileLength_ - 1) / tileLength_);

    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + start, blockLength_);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + start, blockLength_);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + start, blockLength_);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(float));
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(float));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < tileNum_; ++i) {
      CopyIn(i);
      Compute(i);
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline uint32_t TileCount(uint32_t i) const {
    const uint64_t rest = blockLength_ - static_cast<uint64_t>(i) * tileLength_;
    return rest < tileLength_ ? static_cast<uint32_t>(rest) : tileLength_;
  }

  __aicore__ inline void CopyIn(uint32_t i) {
    const uint32_t count = TileCount(i);
    LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
    LocalTensor<float> yLocal = inQueueY_.AllocTensor<float>();
    if (count % kElemsPerBlock32B == 0) {
      DataCopy(xLocal, xGm_[static_cast<uint64_t>(i) * tileLength_], count);
      DataCopy(yLocal, yGm_[static_cast<uint64_t>(i) * tileLength_], count);
    } else {
      // DataCopy would round the length down to 32 bytes; DataCopyPad moves the exact bytes.
      DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
      DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
      DataCopyPad(xLocal, xGm_[static_cast<uint64_t>(i) * tileLength_], params, pad);
      DataCopyPad(yLocal, yGm_[static_cast<uint64_t>(i) * tileLength_], params, pad);
    }
    inQueueX_.EnQue(xLocal);
    inQueueY_.EnQue(yLocal);
  }

  __aicore__ inline void Compute(uint32_t i) {
    LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
    LocalTensor<float> yLocal = inQueueY_.DeQue<float>();
    LocalTensor<float> zLocal = outQueueZ_.AllocTensor<float>();
    Add(zLocal, xLocal, yLocal, static_cast<int32_t>(TileCount(i)));
    outQueueZ_.EnQue<float>(zLocal);
    inQueueX_.FreeTensor(xLocal);
    inQueueY_.FreeTensor(yLocal);
  }

  __aicore__ inline void CopyOut(uint32_t i) {
    const uint32_t count = TileCount(i);
    LocalTensor<float> zLocal = outQueueZ_.DeQue<float>();
    if (count % kElemsPerBlock32B == 0) {
      DataCopy(zGm_[static_cast<uint64_t>(i) * tileLength_], zLocal, count);
    } else {
      DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
      DataCopyPad(zGm_[static_cast<uint64_t>(i) * tileLength_], zLocal, params);
    }
    outQueueZ_.FreeTensor(zLocal);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
  GlobalTensor<float> xGm_, yGm_, zGm_;
  uint64_t blockLength_ = 0;
  uint32_t tileLength_ = 0;
  uint32_t tileNum_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void vector_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, VectorAddTiling tiling) {
  KernelAdd op;
  op.Init(x, y, z, tiling);
  op.Process();
}
