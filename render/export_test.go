package render

// ReadPlanDocumentLimit is ReadPlanDocument under another size limit.
var ReadPlanDocumentLimit = readPlanDocument

// ReadPlanDocumentStrict reads data (no BOM) as the reader did before its
// fast path: encoding/json and the checks after it.
func ReadPlanDocumentStrict(data []byte, file string) (*Document, error) {
	return (&docReader{file: file, data: data}).document()
}

// FastPlanDocument is the reader's fast path alone; false where it leaves
// data to the strict reader.
func FastPlanDocument(data []byte, file string) (*Document, bool) {
	return (&docReader{file: file, data: data}).fastDocument()
}
