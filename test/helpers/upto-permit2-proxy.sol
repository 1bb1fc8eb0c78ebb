// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// A test stand-in for the x402 `upto` Permit2 proxy, written for this project from what @x402/evm
// (the client and the facilitator) expects of it: its ABI (x402UptoPermit2ProxyABI), the witness the
// client signs (Witness(address to,address facilitator,uint256 validAfter)) and the errors the
// facilitator maps. The real contract lives at the same canonical address on public chains; its
// source is not published in any package this project can install, so the local chain runs this one.
//
// The money moves through the real Permit2 (compiled from Uniswap's source at test time): the payer
// signs a PermitWitnessTransferFrom for at most `permitted.amount` with this contract as spender, and
// settle() asks Permit2 to move `amount` of it to the witness's `to`. Only the facilitator named in
// the witness may settle, and never more than was permitted.
//
// Its runtime code is installed with anvil_setCode at the canonical address, so nothing is set in a
// constructor: Permit2's address is a constant. Test use only.
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

interface IERC20Permit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

contract UptoPermit2Proxy {
    address private constant CANONICAL_PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    /// The tail Permit2 appends to its PermitWitnessTransferFrom stub; the client's EIP-712 types
    /// (uptoPermit2WitnessTypes) spell the same struct, with the referenced types in alphabetical order.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error UnauthorizedFacilitator();

    function PERMIT2() external pure returns (ISignatureTransfer) {
        return ISignatureTransfer(CANONICAL_PERMIT2);
    }

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// Approves Permit2 with the payer's EIP-2612 permit first (ignored if it fails: the approval may
    /// already be there), then settles.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC20Permit(permit.permitted.token).permit(
            owner, CANONICAL_PERMIT2, permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();

        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        ISignatureTransfer(CANONICAL_PERMIT2).permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
