package awscall

import "net/http"

// SetContainerClient makes c fetch container credentials until the test
// ends (the ECS and EKS agents' addresses are not reachable in tests).
func SetContainerClient(t interface{ Cleanup(func()) }, c *http.Client) {
	old := containerClient
	containerClient = c
	t.Cleanup(func() { containerClient = old })
}
