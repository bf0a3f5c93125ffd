// Routes of this resource, one file each; filled in by its capability.
export default [];
