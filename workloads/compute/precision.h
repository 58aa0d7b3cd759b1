/* precision.h: the number formats training runs in, and what each costs (pr_).
 *
 *   fp32   everything in 4-byte floats; matrix products on the CUDA cores' FP32 rate
 *   mixed  FP16 weights, activations and gradients (2 bytes), FP32 master weights and optimizer
 *          state (Micikevicius et al., "Mixed Precision Training", ICLR 2018); matrix products
 *          on FP16 tensor cores (the CUDA cores' FP16 rate on a GPU without them)
 *   bf16   as mixed with BF16 (Kalamkar et al., arXiv:1905.12322): same bytes, BF16 tensor
 *          cores; refused on GPUs without them (V100, P100)
 *   tf32   everything stored in FP32 (4 bytes, as fp32), matrix products on the tensor cores
 *          at their TF32 rate (NVIDIA Ampere whitepaper: TF32 keeps FP32's range and storage
 *          and rounds the inputs of tensor-core products to a 10-bit mantissa; frameworks'
 *          default for FP32 convolutions on Ampere and later); refused without TF32 tensor
 *          cores (P100, V100, T4)
 *
 * Bytes per parameter follow ZeRO's accounting (Rajbhandari et al., SC'20, Sec. 3.1): mixed
 * precision with Adam holds 2 (FP16 weights) + 2 (FP16 gradients) + 4 (FP32 master) + 4 + 4
 * (two FP32 states) = 16 bytes. Gradient messages of data parallelism travel in 2 bytes in
 * mixed precision (the "O2" convention of ZeRO and Megatron; PyTorch's native AMP keeps FP32
 * gradients and sends 4 unless a compression hook is registered). Element-wise kernels compute
 * in FP32 registers whatever the storage, so their FLOP rate is the CUDA cores' FP32 rate. */
#ifndef PRECISION_H
#define PRECISION_H

#include "device.h"
#include "hs_error.h"

typedef enum { PR_FP32 = 0, PR_MIXED, PR_BF16, PR_TF32, PR_COUNT } pr_precision;

/* "fp32", "mixed", "bf16" or "tf32" into *out; HS_EINPUT naming --precision otherwise. */
int pr_parse(const char *text, pr_precision *out, char *err);

const char *pr_name(pr_precision precision);

/* Bytes of one activation element, and of its gradient: 4, 2, 2, 4 (fp32, mixed, bf16, tf32;
 * the functions below follow the same order). */
double pr_activation_bytes(pr_precision precision);

/* Bytes per element of a model-parallel message (activations, their gradients, halos): 4, 2, 2. */
double pr_message_bytes(pr_precision precision);

/* Bytes per weight of a data-parallel gradient message: 4, 2, 2 (O2; see above). */
double pr_gradient_message_bytes(pr_precision precision);

/* Bytes per weight the kernels read (FP32 weights, or the FP16/BF16 copy): 4, 2, 2. */
double pr_weight_bytes(pr_precision precision);

/* Bytes per weight gradient: 4, 2, 2. */
double pr_weight_gradient_bytes(pr_precision precision);

/* Bytes per weight of the FP32 master copy the optimizer updates: 0, 4, 4. */
double pr_master_bytes(pr_precision precision);

/* Bytes per optimizer value per weight (momentum, Adam's two moments): FP32, 4. */
double pr_state_bytes(pr_precision precision);

/* All bytes one weight costs in memory with `optimizer_states` values (0 SGD, 1 momentum, 2
 * Adam): weights + gradients + master + states. fp32: 8, 12, 16; mixed/bf16: 8, 12, 16 too
 * (2 + 2 + 4 + 4 per state): mixed precision saves activation memory, not weight memory. */
double pr_parameter_bytes(pr_precision precision, int optimizer_states);

/* Bytes of a mask element (ReLU, dropout): 1, whatever the precision. */
double pr_mask_bytes(void);

/* FLOP/s of dev for matrix products (convolutions, fully connected) in precision: FP32
 * CUDA cores; FP16 tensor cores (without them, the FP32 CUDA cores: libraries multiply FP16
 * inputs with FP32 arithmetic there, as DeepBench's P100 GEMMs ran, "16 bit inputs, 32 bit
 * multiplication"; its P100 convolutions ran cuDNN's true half, which this rate still prices
 * better than the FP16 rate does: experiments/compute/fit.c); BF16 tensor cores; TF32 tensor
 * cores. The peak as the board sustains it (dv_sustained_flops). 0 when dev cannot. */
double pr_matmul_flops(const dv_device *dev, pr_precision precision);

/* Whether matrix products in precision run on dev's tensor cores. */
int pr_tensor_cores(const dv_device *dev, pr_precision precision);

/* Channels a tensor-core product in `precision` needs as a multiple (NVIDIA, "Deep Learning
 * Performance Guide", Tensor Core requirements: 8 FP16/BF16 elements, 4 TF32 ones, a 16-byte
 * access); 1 for fp32, which has no tensor-core products. Meaningful where pr_tensor_cores. */
int pr_tensor_multiple(pr_precision precision);

/* FLOP/s of dev for element-wise work: the FP32 CUDA cores in every precision, as the board
 * sustains them (dv_sustained_flops). */
double pr_vector_flops(const dv_device *dev, pr_precision precision);

/* HS_EINPUT naming --precision when dev cannot train in precision (bf16 without BF16 tensor
 * cores, tf32 without TF32 ones). */
int pr_check_device(const dv_device *dev, pr_precision precision, char *err);

#endif
