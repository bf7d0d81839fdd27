// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects: ranges of the NPU's device memory (BAR2 [0, dram_bytes)), placed by a drm_mm
 * allocator, in the weight-memory region for weight BOs and outside it for the rest. The device
 * addresses are what command buffers carry; user space maps the pages write-combined.
 */

#include <linux/mm.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>

#include <uapi/drm/npusim_accel.h>

#include "npusim_drv.h"

static void npusim_bo_free(struct drm_gem_object *obj)
{
	struct npusim_bo *bo = to_npusim_bo(obj);
	struct npusim_device *ndev = to_npusim_device(obj->dev);

	mutex_lock(&ndev->mm_lock);
	if (drm_mm_node_allocated(&bo->node))
		drm_mm_remove_node(&bo->node);
	mutex_unlock(&ndev->mm_lock);
	drm_gem_free_mmap_offset(obj);
	drm_gem_object_release(obj);
	kfree(bo);
}

static int npusim_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct npusim_bo *bo = to_npusim_bo(obj);
	struct npusim_device *ndev = to_npusim_device(obj->dev);
	unsigned long pfn = (ndev->mem_phys + bo->node.start) >> PAGE_SHIFT;
	int idx, ret;

	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;	/* device memory is shared or nothing */
	if (!drm_dev_enter(obj->dev, &idx))
		return -ENODEV;
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
	ret = io_remap_pfn_range(vma, vma->vm_start, pfn, vma->vm_end - vma->vm_start,
				 vma->vm_page_prot);
	drm_dev_exit(idx);
	return ret;
}

static const struct vm_operations_struct npusim_bo_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs npusim_bo_funcs = {
	.free = npusim_bo_free,
	.mmap = npusim_bo_mmap,
	.vm_ops = &npusim_bo_vm_ops,
};

/* Place size bytes: weights in their region, the rest below it, then above it. */
static int npusim_bo_place(struct npusim_device *ndev, struct npusim_bo *bo, u64 size)
{
	u64 wend = ndev->weight_base + ndev->weight_bytes;
	int ret;

	mutex_lock(&ndev->mm_lock);
	if (bo->flags & DRM_NPUSIM_BO_WEIGHTS) {
		ret = drm_mm_insert_node_in_range(&ndev->mm, &bo->node, size, PAGE_SIZE, 0,
						  ndev->weight_base, wend, DRM_MM_INSERT_BEST);
	} else {
		ret = -ENOSPC;
		if (ndev->weight_base)
			ret = drm_mm_insert_node_in_range(&ndev->mm, &bo->node, size, PAGE_SIZE,
							  0, 0, ndev->weight_base,
							  DRM_MM_INSERT_BEST);
		if (ret && wend < ndev->dram_bytes)
			ret = drm_mm_insert_node_in_range(&ndev->mm, &bo->node, size, PAGE_SIZE,
							  0, wend, ndev->dram_bytes,
							  DRM_MM_INSERT_BEST);
	}
	mutex_unlock(&ndev->mm_lock);
	return ret;
}

int npusim_bo_create_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct npusim_device *ndev = to_npusim_device(drm);
	struct drm_npusim_bo_create *args = data;
	struct npusim_bo *bo;
	u64 size;
	int ret;

	if (args->flags & ~DRM_NPUSIM_BO_WEIGHTS)
		return -EINVAL;
	if (!args->size || args->size > ndev->dram_bytes)
		return -EINVAL;
	size = PAGE_ALIGN(args->size);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	bo->flags = args->flags;
	bo->base.funcs = &npusim_bo_funcs;
	drm_gem_private_object_init(drm, &bo->base, size);

	ret = npusim_bo_place(ndev, bo, size);
	if (ret) {
		drm_dbg(drm, "no room for a BO of %llu bytes (flags 0x%x)\n", size, args->flags);
		goto out_put;
	}
	ret = drm_gem_create_mmap_offset(&bo->base);
	if (ret)
		goto out_put;
	ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (ret)
		goto out_put;
	args->device_addr = bo->node.start;
	args->mmap_offset = drm_vma_node_offset_addr(&bo->base.vma_node);
out_put:
	/* the handle holds the object now, or the last reference frees it */
	drm_gem_object_put(&bo->base);
	return ret;
}

static void npusim_mm_fini(struct drm_device *drm, void *arg)
{
	struct npusim_device *ndev = arg;

	drm_mm_takedown(&ndev->mm);
}

int npusim_gem_init(struct npusim_device *ndev)
{
	mutex_init(&ndev->mm_lock);
	drm_mm_init(&ndev->mm, 0, ndev->dram_bytes);
	/* BOs may outlive the PCI device (open files): the allocator goes with the drm device */
	return drmm_add_action_or_reset(&ndev->drm, npusim_mm_fini, ndev);
}
