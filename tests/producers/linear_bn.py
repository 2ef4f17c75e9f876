"""The PyTorch model the producers' generators export (gen_torch_xla.py, gen_torchax.py): a
Linear(3, 4), an eval-mode BatchNorm1d(4) whose running statistics and affine parameters are set
to distinct values (so that two same-shaped statistics, swapped, give other numbers) and a ReLU,
with its input and torch's eager output on it."""
import torch


class LinearBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.bn = torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.fc(x)))


def model_input_and_output():
    """(the model in eval mode, x of shape (2, 3), torch's output on x), seeded: the same each run."""
    torch.manual_seed(41)
    model = LinearBn().eval()
    with torch.no_grad():
        model.bn.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0, 0.0]))
        model.bn.running_var.copy_(torch.tensor([4.0, 0.25, 1.0, 9.0]))
        model.bn.weight.copy_(torch.tensor([1.5, 0.5, -1.0, 2.0]))
        model.bn.bias.copy_(torch.tensor([0.1, 0.2, 0.3, 0.4]))
    x = torch.randn(2, 3)
    with torch.no_grad():
        expected = model(x)
    return model, x, expected
