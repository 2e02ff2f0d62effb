//go:build !unix

package skillfs

// nonBlock is nothing where FIFOs do not block an open.
const nonBlock = 0
