package textedit

import (
	"bytes"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// xattr is one extended attribute (user.*, security.*, an ACL).
type xattr struct {
	name  string
	value []byte
}

// notSupported reports a file system without extended attributes.
func notSupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}

// readXattrs lists f's extended attributes with their values.
func readXattrs(f *os.File) ([]xattr, error) {
	fd := int(f.Fd())
	size, err := unix.Flistxattr(fd, nil)
	if notSupported(err) || err == nil && size == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	if size, err = unix.Flistxattr(fd, buf); err != nil {
		return nil, err
	}
	var out []xattr
	for _, name := range bytes.Split(buf[:size], []byte{0}) {
		if len(name) == 0 {
			continue
		}
		n, err := unix.Fgetxattr(fd, string(name), nil)
		if err != nil {
			return nil, err
		}
		val := make([]byte, n)
		if n, err = unix.Fgetxattr(fd, string(name), val); err != nil {
			return nil, err
		}
		out = append(out, xattr{name: string(name), value: val[:n]})
	}
	return out, nil
}

// writeXattrs sets the attributes on f.
func writeXattrs(f *os.File, xs []xattr) error {
	for _, x := range xs {
		if err := unix.Fsetxattr(int(f.Fd()), x.name, x.value, 0); err != nil {
			return err
		}
	}
	return nil
}
